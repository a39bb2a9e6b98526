"""`python -m bsuite_rs`: the `bsuite` command, as the console script runs it."""
from bsuite_rs._cli import main

main()
