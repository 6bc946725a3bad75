# The one `atelier` executable and its migrations, for docker-compose.yml.
# Swift 6.2 at least: Hummingbird 2.28 needs swift-tools-version 6.2.
# (Not used by ./ops/run or ./ops/test, which run without Docker.)
FROM swift:6.2-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends libjpeg62-turbo-dev libpng-dev libheif-dev libwebp-dev libopenblas-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
RUN swift build -c release --product atelier \
 && cp "$(swift build -c release --show-bin-path)/atelier" /usr/local/bin/atelier

FROM swift:6.2-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends libjpeg62-turbo libpng16-16 libheif1 libwebp7 libopenblas0 \
 && rm -rf /var/lib/apt/lists/*
RUN useradd --system --create-home atelier && mkdir -p /app/data && chown atelier /app/data
COPY --from=build /usr/local/bin/atelier /usr/local/bin/atelier
COPY Migrations /app/Migrations
ENV ATELIER_MIGRATIONS_DIR=/app/Migrations
USER atelier
WORKDIR /app
ENTRYPOINT ["atelier"]
