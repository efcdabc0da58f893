"""Logging filters. A refused request (403) is routine - a person opening a page their role does
not reach - and is logged as one line, without the traceback Django attaches to it."""

from __future__ import annotations

import logging


class ForbiddenWithoutTraceback(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "status_code", None) == 403 and record.exc_info:
            record.exc_info = None
            record.exc_text = None
        return True
