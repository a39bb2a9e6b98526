"""The `bsuite` command (a console script of the wheel): the program of the `bsuite` binary,
run by the native module in this process, with the same command line and help texts."""
import signal
import sys

from bsuite_rs import _core


def main():
  # As for the binary, Ctrl-C ends the program at once: Python's own handler would only set
  # a flag that no Python code runs to read while the command works.
  signal.signal(signal.SIGINT, signal.SIG_DFL)
  sys.exit(_core.main(sys.argv))


if __name__ == '__main__':
  main()
