"""Upload size limit while the request is read, not after.

``SizeLimitUploadHandler`` comes first in ``FILE_UPLOAD_HANDLERS``. It counts each uploaded file's
bytes; past ``COCOWEB_MAX_UPLOAD_BYTES`` it stops passing chunks on, so the handlers behind it
(memory, temporary file) never hold more than the limit, and it hands the view an empty stand-in
whose ``size`` is the real size. The forms then refuse it with their usual message ("the file is N
bytes; the limit is L bytes") and nothing is stored. The rest of the body is still read (and
dropped) so that the other form fields arrive; a proxy in front (nginx ``client_max_body_size``)
can refuse huge bodies before they reach Django at all.
"""

from __future__ import annotations

import io
from typing import Any

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.core.files.uploadhandler import FileUploadHandler


class OversizedUpload(UploadedFile):
    """What the view gets instead of a file over the limit: no content, the real size."""

    def __init__(self, name: str, content_type: str | None, size: int, charset: str | None) -> None:
        super().__init__(io.BytesIO(b""), name=name, content_type=content_type, size=size, charset=charset)
        self.over_limit = True


class SizeLimitUploadHandler(FileUploadHandler):
    def new_file(self, *args: Any, **kwargs: Any) -> None:
        super().new_file(*args, **kwargs)
        self.received = 0
        self.limit = int(settings.COCOWEB_MAX_UPLOAD_BYTES)

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes | None:
        self.received += len(raw_data)
        return raw_data if self.received <= self.limit else None  # None: later handlers get nothing more

    def file_complete(self, file_size: int) -> UploadedFile | None:
        if self.received <= self.limit:
            return None  # under the limit: the next handler builds the file as usual
        return OversizedUpload(self.file_name or "upload", self.content_type, self.received, self.charset)
