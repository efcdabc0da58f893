import os
from importlib import import_module

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cocoweb.settings")
application = get_wsgi_application()

# Import the URLconf (and through it every view module, with scipy, statsmodels, pandas and
# drf-spectacular) now, not on each worker's first request: under `gunicorn --preload` this runs
# once in the master and the forked workers share it (~1.9 s of CPU per worker otherwise).
import_module(settings.ROOT_URLCONF)
