"""bsuite's `bsuite.logging`: `csv_load` reads a results directory of bsuite CSV files
(`load_bsuite`). Writing them is `bsuite_rs.load_and_record_to_csv`'s job, natively."""
