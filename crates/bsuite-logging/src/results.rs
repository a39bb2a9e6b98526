//! Reading bsuite CSV results back into typed per-id tables.
