# posviz in a container: the lessons served by `posviz app` as a non-root user from an install it cannot write
# to; generated files go to POSVIZ_CACHE_DIR only (docs/DEPLOY.md, "A container").
#   docker build -t posviz .
#   docker run -p 8501:8501 -e POSVIZ_PUBLIC_URL=http://HOST:8501 posviz
FROM python:3.11-slim-bookworm

# Debian's chromium draws the PNG, SVG and PDF exports (kaleido), with fonts for their text; curl runs the
# health check. Debian's own versions follow its security updates, so they are not pinned.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends chromium fonts-dejavu-core fonts-noto-color-emoji fonts-noto-cjk curl \
    && rm -rf /var/lib/apt/lists/*

# the CPU-only torch from PyTorch's own index (PyPI's Linux torch is the CUDA build, several GB), then posviz
# with the app and export extras at the versions the test suite runs (requirements.txt)
COPY . /tmp/posviz
RUN pip install --no-cache-dir --extra-index-url https://download.pytorch.org/whl/cpu \
        -c /tmp/posviz/requirements.txt "/tmp/posviz[app,export]" \
    && rm -rf /tmp/posviz

# uid 1000: the user a Hugging Face Space runs its container as (deploy/huggingface/README.md), so there too the
# process has this account's home; anywhere else any unprivileged uid serves as well
RUN useradd --create-home --uid 1000 posviz
USER 1000
# Streamlit reads its options from STREAMLIT_* variables: `docker run -e STREAMLIT_SERVER_PORT=...` moves it
ENV POSVIZ_CACHE_DIR=/tmp/posviz-cache \
    BROWSER_PATH=/usr/bin/chromium \
    STREAMLIT_SERVER_ADDRESS=0.0.0.0 \
    STREAMLIT_SERVER_PORT=8501 \
    MALLOC_ARENA_MAX=2
EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s \
    CMD ["sh", "-c", "curl -fsS http://127.0.0.1:${STREAMLIT_SERVER_PORT}/_stcore/health || exit 1"]
CMD ["posviz", "app"]
