"""Readers for the public data formats cocoweb imports. Each yields plain records and raises
:class:`DataFormatError` naming the file, line and field of the first problem."""

from .errors import DataFormatError

__all__ = ["DataFormatError"]
