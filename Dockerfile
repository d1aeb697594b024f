# moviebot, headless: the web chatroom on the bundled demo KG, or a Matrix/Speakeasy connector.
#   docker build -t moviebot .
#   docker run -p 8080:8080 -e MOVIEBOT_ACCESS_TOKEN=choose-a-secret moviebot        # http://localhost:8080
#   docker run -e MOVIEBOT_CONNECTOR=matrix -e MOVIEBOT_MATRIX_HOMESERVER=... -e MOVIEBOT_MATRIX_USER=... \
#              -e MOVIEBOT_MATRIX_PASSWORD=... -v moviebot-data:/var/lib/moviebot/data moviebot
#   docker run -e MOVIEBOT_CONNECTOR=speakeasy -e MOVIEBOT_SPEAKEASY_URL=... -e MOVIEBOT_SPEAKEASY_USER=... \
#              -e MOVIEBOT_SPEAKEASY_PASSWORD=... -v moviebot-data:/var/lib/moviebot/data moviebot
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    MOVIEBOT_CACHE_DIR=/var/lib/moviebot/cache \
    MOVIEBOT_DATA_DIR=/var/lib/moviebot/data \
    MOVIEBOT_HOST=0.0.0.0 \
    MOVIEBOT_PORT=8080 \
    PATH=/app/.venv/bin:$PATH

WORKDIR /app
COPY . /app
# every build step lives in this script, which CI runs too (tests/test_chat_docker.py)
RUN scripts/docker-build-steps.sh

EXPOSE 8080
VOLUME /var/lib/moviebot/data
# MOVIEBOT_CONNECTOR: serve (the web chatroom, default) | matrix | speakeasy
CMD ["sh", "-c", "exec moviebot \"${MOVIEBOT_CONNECTOR:-serve}\""]
