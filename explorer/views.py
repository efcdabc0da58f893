from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from accounts.roles import RESEARCHER, role_required


@role_required(RESEARCHER)
def index(request: HttpRequest) -> HttpResponse:
    return render(request, "placeholder.html", {"title": "Explorer", "text": "Nothing here yet."})
