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
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.core.files.uploadhandler import FileUploadHandler, SkipFile
from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, resolve


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


# ----------------------------------------------------------------------------------------------
# Which routes take files, and how large a body any route takes.


def accepts_uploads(view: Any) -> Any:
    """Mark a view as an upload route: only there are multipart file parts parsed (and spooled),
    and only for a signed-in person with the role the view needs (``required_role``, which
    :func:`accounts.roles.role_required` sets: put this decorator above it)."""
    view.accepts_uploads = True
    return view


def _may_upload(request: HttpRequest, view: Any) -> bool:
    """True when ``view`` takes files and the session's user holds the role it needs. Anybody
    else is refused by the view (log-in page, 403) after the CSRF check has read the form: their
    file parts must not reach memory or disk on the way (issue 31 item 7)."""
    if not getattr(view, "accepts_uploads", False):
        return False
    from accounts.roles import has_role  # wiring above the apps: imported when a file arrives

    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return False
    role = getattr(view, "required_role", None)
    return role is None or has_role(user, role)


class SkipFilesHandler(FileUploadHandler):
    """The upload handler of every other route: each file part is skipped (read and dropped in
    small chunks, never kept in memory or on disk); the ordinary form fields still arrive."""

    def new_file(self, *args: Any, **kwargs: Any) -> None:
        raise SkipFile("this page takes no files")

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes | None:  # pragma: no cover
        return None

    def file_complete(self, file_size: int) -> UploadedFile | None:  # pragma: no cover
        return None


def max_body_bytes(upload_route: bool) -> int:
    """The largest body a route takes: an upload route, the file limit plus room for the form
    (a file just over the limit still gets the form's "the file is N bytes" message); any other
    route, Django's limit on form data."""
    if upload_route:
        return int(settings.COCOWEB_MAX_UPLOAD_BYTES) + int(settings.COCOWEB_MAX_REQUEST_OVERHEAD_BYTES)
    return int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)


class UploadRoutesMiddleware:
    """Before anything reads the body: a body larger than the route takes (by ``Content-Length``)
    is answered 413 unread, and a multipart body has its file parts skipped unless the route is
    marked with :func:`accepts_uploads` and the signed-in user holds its role (anybody else gets
    the limits of a route without files). Place it after the authentication middleware (it reads
    ``request.user``); the CSRF check reads ``request.POST`` later, in its ``process_view``,
    which runs after every middleware's request phase. A proxy in front should cap bodies too
    (nginx ``client_max_body_size``): see the README's security section."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        multipart = request.content_type == "multipart/form-data"
        # A form post within both limits (an annotator's answer) is the same on every route: no
        # need to resolve its URL here (the handler resolves it again for the view).
        if multipart or length > min(max_body_bytes(False), max_body_bytes(True)):
            upload_route = _may_upload(request, self._view(request))
            limit = max_body_bytes(upload_route)
            if length > limit:
                return HttpResponse(
                    f"The request body is {length:,} bytes; this page takes at most {limit:,} bytes.\n",
                    status=413,
                    content_type="text/plain; charset=utf-8",
                )
            if not upload_route and multipart:
                request.upload_handlers = [SkipFilesHandler(request)]
        return self.get_response(request)

    @staticmethod
    def _view(request: HttpRequest) -> Any:
        try:
            return resolve(request.path_info).func
        except Resolver404:
            return None
