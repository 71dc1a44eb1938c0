# Med Agent Hub container: multi-stage build, production dependencies only, non-root, tini as init.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY server ./server
COPY clients ./clients
COPY console ./console
COPY scripts/build-console.js ./scripts/
RUN npm run build

FROM node:20-bookworm-slim AS runtime
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production PORT=8080 LLM_BASE_URL=http://host.docker.internal:8077 TEAM_TRACE_DIR=/app/trace
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY profiles ./profiles
COPY prompts ./prompts
COPY data ./data
COPY env.recommended ./
RUN mkdir -p /app/trace /app/models && chown 65532:65532 /app/trace
USER 65532:65532
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["/usr/bin/tini", "--"]
# The same Node flags as `npm start` (package.json): a young generation of 2 MB semi-spaces, see the README.
CMD ["node", "--max-semi-space-size=2", "dist/server/main.js"]
