"""lowercheck: compare a GPU kernel with its translation, statically and by running both."""

__version__ = "0.1.0"
