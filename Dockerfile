# syntax=docker/dockerfile:1
# The gateway and the job worker (same image, different command). Node 24 runs the TypeScript sources
# directly (type stripping), so there is no build step: production dependencies and the sources only.

FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:24-slim
# the source commit for anvil_build_info (the image has no .git): docker build --build-arg ANVIL_COMMIT=…
ARG ANVIL_COMMIT=""
# HOST: every interface of the container (outside one the gateway listens on loopback by default)
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    DATA_DIR=/data \
    ANVIL_COMMIT=${ANVIL_COMMIT}
# glibc raises its mmap threshold to the largest block freed (up to 32 MiB), after which a large body's
# buffers come from the heap arenas and stay resident once freed; a fixed threshold gives them back to the
# OS (docs/dispatch.md, "Threads and memory": measured with bench/diff-memory.ts)
ENV MALLOC_MMAP_THRESHOLD_=131072
# and asks the kernel for 2 MiB pages for its large blocks (madvise; a host whose transparent huge pages are
# "madvise", the common default, gives them only when asked): a 15 MiB body's buffers then cost ~12,000
# page faults on the pool thread instead of ~44,000, and its minify as {input} 0.6x the time
# (docs/dispatch.md, "Page faults"). GLIBC_TUNABLES=glibc.malloc.hugetlb=0 at run time turns it off
ENV GLIBC_TUNABLES=glibc.malloc.hugetlb=1
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY src ./src
COPY workers ./workers
# the worked examples are the OpenAPI documents' examples (src/http/openapi/examples.ts)
COPY docs/examples ./docs/examples
# DATA_DIR holds the self-signed certificate (unless TLS_CERT_FILE/TLS_KEY_FILE are set) and, without
# Redis, the embedded store: owned by the unprivileged user the process runs as
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8443 9464
# liveness of the API listener; /readyz (store and pools) is for load balancers
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "require('node:https').get({host:'127.0.0.1',port:process.env.PORT||8443,path:'/healthz',rejectUnauthorized:false},(r)=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1))"]
CMD ["node", "src/main/gateway.ts"]
