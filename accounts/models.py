"""REST API tokens, stored hashed (issue 31 item 11). DRF's ``authtoken`` kept each key in clear and
the admin listed it: anyone who read the table, a backup or the admin page held every person's
API access. Here the key is shown once to the person who makes it and only its SHA-256 is stored
(a key is 160 random bits, so a plain digest is as good as a slow hash); ``prefix`` lets a person
and an admin tell tokens apart. :mod:`accounts.api_tokens` authenticates by the digest."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_token")
    digest = models.CharField(max_length=64, unique=True, editable=False, help_text="SHA-256 of the key, hex")
    prefix = models.CharField(max_length=8, editable=False, help_text="the key's first characters")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "API token"

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user})"
