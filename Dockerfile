# The actiondex image: one image for the API, migrations and crawls.
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY actiondex ./actiondex
COPY registry ./registry
COPY crawler ./crawler
COPY api ./api
COPY migrations ./migrations
RUN pip install --no-cache-dir .
ENV ACTIONDEX_DATA_DIR=/data
VOLUME /data
EXPOSE 8000
CMD ["actiondex", "serve", "--host", "0.0.0.0", "--port", "8000"]
