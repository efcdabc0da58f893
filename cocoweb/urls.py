from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from accounts import views as account_views
from knowledge import views as knowledge_views

urlpatterns = [
    path("", knowledge_views.home, name="home"),
    path("accounts/login/", account_views.login_view, name="login"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/login/", account_views.login_view),  # the admin's log-in is throttled too
    path("admin/", admin.site.urls),
    path("knowledge/", include("knowledge.urls")),
    path("annotation/", include("annotation.urls")),
    path("runs/", include("runs.urls")),
    path("explorer/", include("explorer.urls")),
    path("api/annotation/", include("annotation.api_urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
]
