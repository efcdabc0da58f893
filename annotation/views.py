from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from accounts.roles import ANNOTATOR, role_required


@role_required(ANNOTATOR)
def index(request: HttpRequest) -> HttpResponse:
    return render(request, "placeholder.html", {"title": "Annotation", "text": "Nothing here yet."})
