from django.urls import path

from . import views

app_name = "annotation"
urlpatterns = [
    path("", views.index, name="index"),
]
