"""The exceptions bsuite_rs defines."""


class ResultsFileExistsError(FileExistsError, ValueError):
  """A results file exists and `overwrite` is false.

  A `FileExistsError` (an `OSError`), and also a `ValueError`, which is what bsuite raises
  in this case, so code written for bsuite catches it unchanged.
  """
