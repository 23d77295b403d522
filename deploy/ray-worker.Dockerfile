# A Ray node (head or worker) that can play Accord games and write their traces into a store.
#
# Build from the repository root, on the Ray version the cluster runs:
#   docker build -f deploy/ray-worker.Dockerfile --build-arg RAY_VERSION=2.40.0 -t accord-ray .
#
# Every node of a cluster, and the driver (`accord run --executor ray`), must run the same
# Accord version and the same Ray and Python versions. Nothing secret is baked in: API keys and
# the store's credentials (AWS_*, GOOGLE_APPLICATION_CREDENTIALS, AZURE_STORAGE_*) come from the
# environment of the running container (a Kubernetes Secret, an instance role).
ARG RAY_VERSION=2.40.0
ARG PYTHON_TAG=py311
FROM rayproject/ray:${RAY_VERSION}-${PYTHON_TAG}

# The bundled local model needs a compiler to build llama-cpp-python; hosted and mock models
# do not. Drop the `local` extra below to keep the image small when no seat runs locally.
USER root
RUN apt-get update \
 && apt-get install -y --no-install-recommends build-essential cmake \
 && rm -rf /var/lib/apt/lists/*
USER ray

WORKDIR /home/ray/accord
COPY --chown=ray:users pyproject.toml README.md ./
COPY --chown=ray:users src ./src
# Ray itself comes from the base image; pinning it again here would let pip replace it.
RUN pip install --no-cache-dir ".[local]" \
 && python -c "import accord, obstore, ray; print('accord', accord.__version__, 'ray', ray.__version__)"

# A model cache shared by every node (`--cache`) must be a volume all of them mount, e.g.
#   -v /mnt/shared/accord-cache:/cache   and   accord run ... --cache /cache
ENV LITELLM_LOCAL_MODEL_COST_MAP=True
