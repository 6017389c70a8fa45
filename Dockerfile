FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

COPY requirements-runtime.txt .
RUN pip install -r requirements-runtime.txt

COPY . .
# The admin's static files, served by WhiteNoise from the image. var/metrics, the
# metrics folder (PROMETHEUS_MULTIPROC_DIR), is made here empty and owned by uno: a
# new named volume mounted on it (docker-compose.yml) copies that, writable by uno.
RUN SECRET_KEY=collectstatic DEBUG=false python manage.py collectstatic --noinput \
    && useradd --system --uid 10001 --home-dir /app uno \
    && rm -rf /app/var/metrics \
    && mkdir -p /app/var/metrics \
    && chown -R uno /app/var
USER uno

EXPOSE 8000
CMD ["python", "-m", "unoservice.serve", "--host", "0.0.0.0", "--port", "8000"]
