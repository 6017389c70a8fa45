FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

COPY requirements-runtime.txt .
RUN pip install -r requirements-runtime.txt

COPY . .
# The admin's static files, served by WhiteNoise from the image.
RUN SECRET_KEY=collectstatic DEBUG=false python manage.py collectstatic --noinput \
    && useradd --system --uid 10001 --home-dir /app uno \
    && mkdir -p /app/var \
    && chown -R uno /app/var
USER uno

EXPOSE 8000
CMD ["python", "-m", "unoservice.serve", "--host", "0.0.0.0", "--port", "8000"]
