from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from accounts import views as account_views
from accounts import views_people, views_token
from cocoweb import views as project_views
from knowledge.views import browse as knowledge_views

urlpatterns = [
    path("", knowledge_views.home, name="home"),
    path("accounts/login/", account_views.login_view, name="login"),
    # Only the auth pages cocoweb uses. No e-mail password reset: no mail server is configured (the
    # reset form would fail with a 500); an admin gives a set-password link from the People page.
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/password_change/", account_views.password_change_view, name="password_change"),
    path("accounts/password_change/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("accounts/api-token/", views_token.api_token, name="api_token"),
    # an admin's one-time link for someone to set a password (Django's reset token, no e-mail form)
    path("accounts/set-password/<uidb64>/<token>/", views_people.set_password, name="set_password"),
    path("people/", views_people.people, name="people"),  # admins: accounts, roles, tokens
    path("people/invite/", views_people.invite, name="people_invite"),
    path("people/<int:pk>/role/", views_people.role, name="people_role"),
    path("people/<int:pk>/active/", views_people.active, name="people_active"),
    path("people/<int:pk>/token/revoke/", views_people.token_revoke, name="people_token_revoke"),
    path("people/<int:pk>/password-link/", views_people.password_link, name="people_password_link"),
    path("admin/login/", account_views.login_view),  # the admin's log-in is throttled too
    path("admin/", admin.site.urls),
    path("knowledge/", include("knowledge.urls")),
    path("annotation/", include("annotation.urls")),
    path("join/", include("annotation.crowd.urls")),  # crowd study links (Prolific, MTurk, panels)
    path("runs/", include("runs.urls")),
    path("explorer/", include("explorer.urls")),
    path("api/annotation/", include("annotation.api.urls")),
    path("api/knowledge/", include("knowledge.api.urls")),
    path("api/runs/", include("runs.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", project_views.api_docs, name="api-docs"),
    path("favicon.ico", project_views.favicon),
]

handler403 = "cocoweb.errors.permission_denied"  # a person without a role is told whom to ask
handler404 = "cocoweb.errors.page_not_found"  # JSON under /api/, HTML elsewhere
handler500 = "cocoweb.errors.server_error"
