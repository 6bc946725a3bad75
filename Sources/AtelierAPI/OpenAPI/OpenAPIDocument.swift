/// The OpenAPI 3.1 description of every route, served at `/openapi.yaml` with `{{BASE_URL}}`
/// replaced by the public base URL. Kept in Swift (not a bundle resource) so the single
/// `atelier` binary carries it wherever it is copied. `ServiceEndpointTests` checks that the
/// routes served and the operations described are the same set.
enum OpenAPIDocument {
    static let yaml = #"""
openapi: 3.1.0
info:
  title: Atelier API
  version: 0.1.0
  description: |
    Jobs for photo apps: create a job (stylize, caption, analysis, index …), follow it by
    polling or Server-Sent Events, download its result from a pre-signed URL.
    Every /v1 request needs an app token (`X-App-Token` or `Authorization: Bearer`) unless the
    server runs with open access. Mondrian's root routes and /api/generateCaption need one too,
    except when the operator lists the app in ATELIER_ANONYMOUS_APPS (`mondrian`, `caption`):
    the credential is then optional on that app's routes (a wrong one is still 401). Every response carries `X-Request-ID` and `X-Response-Time`;
    rate-limited routes carry `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset`.
servers:
  - url: "{{BASE_URL}}"
security:
  - appToken: []
  - bearer: []
paths:
  /health:
    get:
      summary: Health of the API process and its dependencies
      security: []
      responses:
        "200":
          description: healthy
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Health" }
        "503":
          description: degraded (a dependency is down)
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Health" }
  /metrics:
    get:
      summary: Prometheus metrics (requests, durations, jobs by kind and state, queue depth)
      security: []
      responses:
        "200":
          description: Prometheus text exposition format
          content:
            text/plain: { schema: { type: string } }
  /openapi.yaml:
    get:
      summary: This document
      security: []
      responses:
        "200":
          description: OpenAPI 3.1 document
          content:
            application/yaml: { schema: { type: string } }
  /results/{key}:
    parameters:
      - { name: key, in: path, required: true, description: "blob key, e.g. jobs/ID/result.jpg (may contain /)", schema: { type: string } }
      - { name: expires, in: query, required: true, description: "unix time after which the URL is refused", schema: { type: integer } }
      - { name: signature, in: query, required: true, description: "base64url HMAC-SHA256", schema: { type: string } }
      - { name: Range, in: header, required: false, description: "one byte range, e.g. bytes=0-1023", schema: { type: string } }
      - { name: If-None-Match, in: header, required: false, schema: { type: string } }
    get:
      summary: Download a result through its pre-signed URL (no credential)
      security: []
      responses:
        "200": { description: the file, content: { image/jpeg: {}, image/png: {}, application/octet-stream: {} } }
        "206": { description: the requested byte range }
        "304": { description: not modified (ETag matched) }
        "403": { $ref: "#/components/responses/Forbidden" }
        "404": { $ref: "#/components/responses/NotFound" }
        "416": { $ref: "#/components/responses/Error" }
        "429": { $ref: "#/components/responses/TooManyRequests" }
        "503": { $ref: "#/components/responses/Unavailable" }
    head:
      summary: Headers of a result download
      security: []
      responses:
        "200": { description: headers only }
        "403": { $ref: "#/components/responses/Forbidden" }
        "429": { $ref: "#/components/responses/TooManyRequests" }
        "503": { $ref: "#/components/responses/Unavailable" }
  /v1/jobs:
    post:
      summary: Create a job
      description: |
        Multipart (`image` file part, `kind`, `options` JSON object; any other text field becomes
        an option, JSON objects parsed — the Caricature app sends `params` and `style_id`, and a
        `style_id` without `kind` means `stylize`) or JSON (`kind`, `options`, base64 `image`).
        The image format (JPEG, PNG, HEIC, WebP) is detected from its bytes and its size read
        from its header before anything is stored: over ATELIER_IMAGE_MAX_PIXELS (50 MP) or
        ATELIER_IMAGE_MAX_SIDE (20000 px) → 413, another format → 415, a damaged header → 400
        with `details.field = image`. A repeated `Idempotency-Key` from the same owner returns
        the first job (with `Idempotent-Replayed: true`).
      parameters:
        - { name: Idempotency-Key, in: header, required: false, schema: { type: string, minLength: 1, maxLength: 255 } }
        - { name: X-Request-ID, in: header, required: false, description: "kept when printable and at most 128 bytes, else replaced by a new id", schema: { type: string } }
      requestBody:
        required: true
        content:
          multipart/form-data:
            schema:
              description: |
                An image with a `kind` ({{IMAGE_KINDS}}). Also taken: a `style_id` without `kind`
                (stylize, the Caricature app's form), `options` (a JSON
                object), `params` (stylize: JSON {intensity, eyes, nose, mouth, jaw}, each 0…1),
                `warp` (stylize: a JSON list like the JSON body's), and any other text field, which
                becomes an option.
              type: object
              required: [image, kind]
              properties:
                image: { type: string, format: binary, description: "JPEG, PNG, HEIC or WebP" }
                kind: { type: string, enum: [{{IMAGE_KINDS}}] }
                style_id: { type: string, enum: [cartoon, sketch, pop_art, watercolor, comic] }
                output: { type: string, enum: [jpeg, png], description: "stylize: the result's format (default jpeg)" }
          application/json:
            schema:
              description: "`{kind, options, image}` for one of the kinds this server accepts: {{JOB_KINDS}}"
              oneOf:
                - {{JOB_BODY_REFS}}
      responses:
        "200":
          description: created (or replayed with the same Idempotency-Key)
          content:
            application/json:
              schema: { $ref: "#/components/schemas/CreatedJob" }
          links:
            GetJob: { operationRef: "#/paths/~1v1~1jobs~1{id}/get", parameters: { id: "$response.body#/id" } }
            FollowJob: { operationRef: "#/paths/~1v1~1jobs~1{id}~1events/get", parameters: { id: "$response.body#/id" } }
            CancelJob: { operationRef: "#/paths/~1v1~1jobs~1{id}/delete", parameters: { id: "$response.body#/id" } }
            CancelJobByPost: { operationRef: "#/paths/~1v1~1jobs~1{id}~1cancel/post", parameters: { id: "$response.body#/id" } }
        "400": { $ref: "#/components/responses/BadRequest" }
        "401": { $ref: "#/components/responses/Unauthorized" }
        "413": { $ref: "#/components/responses/Error" }
        "415": { $ref: "#/components/responses/Error" }
        "429": { $ref: "#/components/responses/TooManyRequests" }
        "503": { $ref: "#/components/responses/Unavailable" }
    get:
      summary: The caller's jobs, newest first
      parameters:
        - { name: page, in: query, schema: { type: integer, minimum: 1, maximum: 1000000, default: 1 } }
        - { name: limit, in: query, schema: { type: integer, minimum: 1, maximum: 100, default: 20 } }
        - { name: status, in: query, description: "pending, succeeded, failed (comma list)", schema: { type: string, pattern: "^((pending|succeeded|failed)(,(pending|succeeded|failed))*)?$" } }
        - { name: state, in: query, description: "queued, running, succeeded, failed, cancelled (comma list)", schema: { type: string, pattern: "^((queued|running|succeeded|failed|cancelled)(,(queued|running|succeeded|failed|cancelled))*)?$" } }
        - { name: kind, in: query, description: comma list, schema: { type: string } }
      responses:
        "200":
          description: one page
          content:
            application/json:
              schema: { $ref: "#/components/schemas/JobPage" }
        "400": { $ref: "#/components/responses/BadRequest" }
        "401": { $ref: "#/components/responses/Unauthorized" }
        "429": { $ref: "#/components/responses/TooManyRequests" }
        "503": { $ref: "#/components/responses/Unavailable" }
  /v1/jobs/{id}:
    parameters:
      - { name: id, in: path, required: true, schema: { type: string, format: uuid } }
    get:
      summary: One job; cheap to poll with If-None-Match
      parameters:
        - { name: If-None-Match, in: header, required: false, schema: { type: string } }
      responses:
        "200":
          description: the job (ETag header set)
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Job" }
        "304": { description: not modified }
        "401": { $ref: "#/components/responses/Unauthorized" }
        "404": { $ref: "#/components/responses/NotFound" }
        "429": { $ref: "#/components/responses/TooManyRequests" }
        "503": { $ref: "#/components/responses/Unavailable" }
    delete:
      summary: Cancel a job (queued at once; running when its worker stops it)
      responses:
        "202":
          description: cancellation recorded; the job as it is now
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Job" }
        "401": { $ref: "#/components/responses/Unauthorized" }
        "404": { $ref: "#/components/responses/NotFound" }
        "409": { $ref: "#/components/responses/Error" }
        "429": { $ref: "#/components/responses/TooManyRequests" }
        "503": { $ref: "#/components/responses/Unavailable" }
  /v1/jobs/{id}/cancel:
    parameters:
      - { name: id, in: path, required: true, schema: { type: string, format: uuid } }
    post:
      summary: Cancel a job (same as DELETE /v1/jobs/{id})
      responses:
        "202":
          description: cancellation recorded
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Job" }
        "404": { $ref: "#/components/responses/NotFound" }
        "409": { $ref: "#/components/responses/Error" }
        "401": { $ref: "#/components/responses/Unauthorized" }
        "429": { $ref: "#/components/responses/TooManyRequests" }
        "503": { $ref: "#/components/responses/Unavailable" }
  /v1/jobs/{id}/events:
    parameters:
      - { name: id, in: path, required: true, schema: { type: string, format: uuid } }
      - { name: Last-Event-ID, in: header, required: false, description: "resume after this event id (empty: from the start)", schema: { type: string, pattern: "^([0-9]{1,18})?$" } }
      - { name: last_event_id, in: query, required: false, description: "same as the header (the header wins)", schema: { type: integer, minimum: 0, maximum: 9223372036854775807 } }
    get:
      summary: Server-Sent Events for one job
      description: |
        `event: snapshot` first (the job, no id), then the job's events after Last-Event-ID with
        `id:` and `event:` set to the event id and type (running, progress, retrying, requeued,
        cancel_requested, succeeded, failed, cancelled), then live events. `: keep-alive`
        comments on idle streams. The stream ends after the terminal event.
      responses:
        "200":
          description: the event stream (the schema describes one event, as OpenAPI 3.1 tools read it)
          content:
            text/event-stream:
              schema: { $ref: "#/components/schemas/JobStreamEvent" }
        "401": { $ref: "#/components/responses/Unauthorized" }
        "404": { $ref: "#/components/responses/NotFound" }
        "429": { $ref: "#/components/responses/TooManyRequests" }
        "503": { $ref: "#/components/responses/Unavailable" }
        "400": { $ref: "#/components/responses/BadRequest" }
  /api/generateCaption:
    post:
      summary: Caption an image (the caption app's API, docs/clients.md §1)
      description: |
        Runs a high-priority `caption` job with the configured vision provider (`local` by
        default: sentences composed from measurements, `provider` "atelier-local") and waits for
        it. The image is deleted when the job ends. Errors use the app's own shape
        `{success: false, error: {code, message, timestamp}}`: AUTH_001 401, VAL_001 400 (bad
        JSON, missing field, bad base64, unsupported mimeType, not an image, over 5 MB of
        base64), AI_001 500 (provider failed or timed out), RATE_001 429 (per client IP; `X-RateLimit-*`
        headers on every answer). Any other method is METHOD_001 405 with `Allow: POST`. Token in
        `X-App-Token`.
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [imageData, mimeType]
              properties:
                imageData: { type: string, description: base64 (a data URI prefix is accepted), at most 5 MB }
                mimeType: { type: string, enum: [image/jpeg, image/jpg, image/png, image/webp, image/heic, image/heif] }
      responses:
        "200":
          description: the caption
          content:
            application/json:
              schema:
                type: object
                properties:
                  success: { type: boolean }
                  data:
                    type: object
                    properties:
                      caption: { type: string }
                      provider: { type: string }
                      model: { type: string }
                      confidence: { type: string, enum: [high, medium, low] }
                      usage:
                        type: object
                        properties:
                          prompt_tokens: { type: integer }
                          completion_tokens: { type: integer }
                          total_tokens: { type: integer }
                      processingTime: { type: string, example: 142ms }
                      requestId: { type: string, example: req_1641234567890_abc123 }
                  metadata:
                    type: object
                    properties:
                      timestamp: { type: string, example: "2024-01-15T10:30:45.123Z" }
                      provider: { type: string }
                      requestId: { type: string }
                      processingTime: { type: integer }
                      imageSize: { type: integer }
                      mimeType: { type: string }
        "400": { $ref: "#/components/responses/CaptionError" }
        "401": { $ref: "#/components/responses/CaptionError" }
        "429": { $ref: "#/components/responses/CaptionError" }
        "500": { $ref: "#/components/responses/CaptionError" }
  /api/auth/login:
    post:
      summary: Sign in with email and password (the fleet app's API, docs/clients.md §6)
      description: |
        Answers an access token (a JWT, HS256, valid `expiresIn` seconds) for a user made with
        `atelier users create`. A wrong email, a wrong password and a disabled user get the same
        401. At most 30 attempts a minute per client address and 10 per email (429 with
        `retryAfter` and `Retry-After`). 503 when the server has no ATELIER_JWT_SECRET.
      security: []
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [email, password]
              properties:
                email: { type: string, minLength: 1, example: user@example.com }
                password: { type: string, minLength: 1, example: password123 }
      responses:
        "200":
          description: signed in
          content:
            application/json:
              schema:
                type: object
                required: [token, user, expiresIn]
                properties:
                  token: { type: string }
                  user:
                    type: object
                    required: [id, email, role]
                    properties:
                      id: { type: string }
                      email: { type: string }
                      role: { type: string }
                  expiresIn: { type: integer, example: 3600 }
        "400": { $ref: "#/components/responses/FleetError" }
        "401": { $ref: "#/components/responses/FleetError" }
        "429": { $ref: "#/components/responses/FleetError" }
        "503": { $ref: "#/components/responses/FleetError" }
  /api/auth/me:
    get:
      summary: The signed-in user (the fleet app's API)
      description: |
        Bearer access token from `/api/auth/login`; 401 `{error, message, code}` when it is expired,
        invalid or logged out. Spends the user's request budget (ATELIER_RATE_LIMIT, one per user
        whichever of their tokens comes); a bad token spends the client address's sign-in budget.
        Over either → 429 with `retryAfter`.
      security: [{ bearer: [] }]
      responses:
        "200":
          description: the user
          content:
            application/json:
              schema:
                type: object
                required: [id, email, name, role, permissions]
                properties:
                  id: { type: string }
                  email: { type: string }
                  name: { type: string }
                  role: { type: string }
                  permissions: { type: array, items: { type: string } }
        "401": { $ref: "#/components/responses/FleetError" }
        "429": { $ref: "#/components/responses/FleetError" }
        "503": { $ref: "#/components/responses/FleetError" }
  /api/auth/refresh:
    post:
      summary: Renew a still-valid access token (the fleet app's API)
      description: Answers a new token; the one presented stops working. Budgets as for `/api/auth/me` (429).
      security: [{ bearer: [] }]
      responses:
        "200":
          description: the new token
          content:
            application/json:
              schema:
                type: object
                required: [token, expiresIn]
                properties:
                  token: { type: string }
                  expiresIn: { type: integer, example: 3600 }
        "401": { $ref: "#/components/responses/FleetError" }
        "429": { $ref: "#/components/responses/FleetError" }
        "503": { $ref: "#/components/responses/FleetError" }
  /api/auth/logout:
    post:
      summary: Sign out (the fleet app's API)
      description: The token stops working in every API process at once. Budgets as for `/api/auth/me` (429).
      security: [{ bearer: [] }]
      responses:
        "204": { description: signed out }
        "401": { $ref: "#/components/responses/FleetError" }
        "429": { $ref: "#/components/responses/FleetError" }
        "503": { $ref: "#/components/responses/FleetError" }
  /api/ios/auth/apple:
    post:
      summary: Sign in with Apple (the Learn Assistant's API, docs/clients.md §7)
      description: |
        Verifies the identity token (RS256, Apple's keys from ATELIER_APPLE_JWKS, `aud` one of
        ATELIER_APPLE_AUDIENCES, not expired), makes the user on the first sign-in, and answers an
        access token (an hour), a refresh token (30 days, rotated on use) and `expiresAt` (epoch
        seconds). 400 without a token, 401 for an invalid one, 503 when Sign in with Apple is not
        configured, 429 past the client address's sign-in budget or the Apple account's. Errors
        are `{"error": "message"}`.
      security: []
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [identityToken]
              properties:
                identityToken: { type: string, minLength: 1 }
                user: { type: string, description: Apple's user identifier; when sent, it must be the token's subject }
      responses:
        "200":
          description: signed in
          content:
            application/json:
              schema:
                type: object
                required: [user, accessToken, refreshToken, expiresAt]
                properties:
                  user:
                    type: object
                    required: [id, email, createdAt]
                    properties:
                      id: { type: string }
                      email: { type: string }
                      createdAt: { type: string, example: "2024-01-01T00:00:00Z" }
                  accessToken: { type: string }
                  refreshToken: { type: string }
                  expiresAt: { type: integer, example: 1704153600 }
        "400": { $ref: "#/components/responses/LearnError" }
        "401": { $ref: "#/components/responses/LearnError" }
        "429": { $ref: "#/components/responses/LearnError" }
        "503": { $ref: "#/components/responses/LearnError" }
  /api/ios/auth/refresh:
    post:
      summary: A new access token for a refresh token (the Learn Assistant's API)
      description: The refresh token is spent and a new one answered; a spent one presented again ends its whole family (401). Spends the client address's sign-in budget (429 past it).
      security: []
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [refreshToken]
              properties:
                refreshToken: { type: string, minLength: 1 }
      responses:
        "200":
          description: the new tokens
          content:
            application/json:
              schema:
                type: object
                required: [user, accessToken, refreshToken, expiresAt]
                properties:
                  user:
                    type: object
                    required: [id, email]
                    properties:
                      id: { type: string }
                      email: { type: string }
                  accessToken: { type: string }
                  refreshToken: { type: string }
                  expiresAt: { type: integer }
        "400": { $ref: "#/components/responses/LearnError" }
        "401": { $ref: "#/components/responses/LearnError" }
        "429": { $ref: "#/components/responses/LearnError" }
        "503": { $ref: "#/components/responses/LearnError" }
  /v1/admin/queue:
    get:
      summary: The queue's statistics, for operators (users with the admin role)
      description: |
        Jobs by kind and state, each queue's depth and its oldest waiting job, and finished jobs per
        minute over the last `minutes` (oldest first, the current minute last) — what
        `atelier queue stats --json` prints. A user's access token with the `admin` role; anyone
        else is 403 `AuthorizationError` (an app token has no role).
      security: [{ accessToken: [] }]
      parameters:
        - { name: minutes, in: query, schema: { type: integer, minimum: 1, maximum: 60, default: 5 } }
      responses:
        "200":
          description: the statistics
          content:
            application/json:
              schema:
                type: object
                required: [counts, queues, throughput_per_minute]
                properties:
                  counts:
                    type: array
                    items:
                      type: object
                      required: [kind, state, count]
                      properties: { kind: { type: string }, state: { type: string }, count: { type: integer } }
                  queues:
                    type: array
                    items:
                      type: object
                      required: [queue, paused, ready, scheduled, running, oldest_ready_age_seconds]
                      properties:
                        queue: { type: string }
                        paused: { type: boolean }
                        ready: { type: integer }
                        scheduled: { type: integer }
                        running: { type: integer }
                        oldest_ready_age_seconds: { type: number }
                  throughput_per_minute:
                    type: array
                    items:
                      type: object
                      required: [minute, succeeded, failed]
                      properties: { minute: { type: string }, succeeded: { type: integer }, failed: { type: integer } }
        "400": { $ref: "#/components/responses/BadRequest" }
        "401": { $ref: "#/components/responses/Unauthorized" }
        "403": { $ref: "#/components/responses/Forbidden" }
        "429": { $ref: "#/components/responses/TooManyRequests" }
        "503": { $ref: "#/components/responses/Unavailable" }
  /api/ios/knowledge:
    get:
      summary: The user's knowledge points, newest first (the Learn Assistant's API)
      description: |
        Bearer access token of a user (Sign in with Apple or a password sign-in); an app token is
        not a user (401). Errors are `{"error": "message"}`.
      security: [{ accessToken: [] }]
      parameters:
        - { name: limit, in: query, schema: { type: integer, minimum: 1, maximum: 100, default: 20 } }
        - { name: offset, in: query, schema: { type: integer, minimum: 0, maximum: 1000000, default: 0 } }
        - { name: is_in_review_plan, in: query, schema: { type: string, enum: ["true", "false"] } }
      responses:
        "200":
          description: the points
          content:
            application/json:
              schema:
                type: object
                required: [points]
                properties:
                  points: { type: array, items: { $ref: "#/components/schemas/KnowledgePoint" } }
        "400": { $ref: "#/components/responses/LearnError" }
        "401": { $ref: "#/components/responses/LearnError" }
        "429": { $ref: "#/components/responses/LearnError" }
        "503": { $ref: "#/components/responses/LearnError" }
    post:
      summary: Create a knowledge point (the Learn Assistant's API)
      description: |
        Answers at once. The point gets five reviews (1, 3, 7, 14 and 30 days from today, UTC) and
        an `index` job that embeds it: it becomes a chat source when that job succeeds.
      security: [{ accessToken: [] }]
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [question, answer]
              properties:
                question: { type: string, minLength: 1, maxLength: 4000, pattern: "^[^\\x00]*[^\\s\\x00\\x85][^\\x00]*$" }
                answer: { type: string, minLength: 1, maxLength: 8000, pattern: "^[^\\x00]*[^\\s\\x00\\x85][^\\x00]*$" }
                isInReviewPlan: { type: boolean, default: true }
      responses:
        "200": { $ref: "#/components/responses/KnowledgePointAnswer" }
        "400": { $ref: "#/components/responses/LearnError" }
        "413": { $ref: "#/components/responses/LearnError" }
        "401": { $ref: "#/components/responses/LearnError" }
        "429": { $ref: "#/components/responses/LearnError" }
        "503": { $ref: "#/components/responses/LearnError" }
  /api/ios/knowledge/{id}:
    parameters:
      - { name: id, in: path, required: true, schema: { type: string } }
    put:
      summary: Change a knowledge point (the Learn Assistant's API)
      description: Any of the three fields; a new text is indexed again; its reviews are kept. Another user's point is 404.
      security: [{ accessToken: [] }]
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              anyOf: [{ required: [question] }, { required: [answer] }, { required: [isInReviewPlan] }]
              properties:
                question: { type: string, minLength: 1, maxLength: 4000, pattern: "^[^\\x00]*[^\\s\\x00\\x85][^\\x00]*$" }
                answer: { type: string, minLength: 1, maxLength: 8000, pattern: "^[^\\x00]*[^\\s\\x00\\x85][^\\x00]*$" }
                isInReviewPlan: { type: boolean }
      responses:
        "200": { $ref: "#/components/responses/KnowledgePointAnswer" }
        "400": { $ref: "#/components/responses/LearnError" }
        "413": { $ref: "#/components/responses/LearnError" }
        "401": { $ref: "#/components/responses/LearnError" }
        "404": { $ref: "#/components/responses/LearnError" }
        "429": { $ref: "#/components/responses/LearnError" }
        "503": { $ref: "#/components/responses/LearnError" }
    delete:
      summary: Delete a knowledge point with its reviews and its vector (the Learn Assistant's API)
      security: [{ accessToken: [] }]
      responses:
        "200": { $ref: "#/components/responses/LearnSuccess" }
        "401": { $ref: "#/components/responses/LearnError" }
        "404": { $ref: "#/components/responses/LearnError" }
        "429": { $ref: "#/components/responses/LearnError" }
        "503": { $ref: "#/components/responses/LearnError" }
  /api/ios/reviews:
    get:
      summary: Reviews due today or earlier, not completed, earliest first (the Learn Assistant's API)
      description: Only points in the review plan; dates are `YYYY-MM-DD` in UTC.
      security: [{ accessToken: [] }]
      responses:
        "200":
          description: the due reviews
          content:
            application/json:
              schema:
                type: object
                required: [reviews]
                properties:
                  reviews:
                    type: array
                    items:
                      type: object
                      required: [id, knowledgePointId, reviewNumber, reviewDate, completed, completedAt, recallText, knowledgePoints]
                      properties:
                        id: { type: string }
                        knowledgePointId: { type: string }
                        reviewNumber: { type: integer, minimum: 1, maximum: 5 }
                        reviewDate: { type: string, example: "2024-01-03" }
                        completed: { type: boolean }
                        completedAt: { type: [string, "null"] }
                        recallText: { type: [string, "null"] }
                        knowledgePoints:
                          type: object
                          required: [question, answer]
                          properties:
                            question: { type: string }
                            answer: { type: string }
        "401": { $ref: "#/components/responses/LearnError" }
        "429": { $ref: "#/components/responses/LearnError" }
        "503": { $ref: "#/components/responses/LearnError" }
  /api/ios/reviews/{id}/complete:
    parameters:
      - { name: id, in: path, required: true, schema: { type: string } }
    post:
      summary: Complete a review with what the user recalled (the Learn Assistant's API)
      description: Completing it again keeps the first completion and answers success. Another user's review is 404.
      security: [{ accessToken: [] }]
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              properties:
                recallText: { type: [string, "null"], maxLength: 8000, pattern: "^[^\\x00]*$" }
      responses:
        "200": { $ref: "#/components/responses/LearnSuccess" }
        "400": { $ref: "#/components/responses/LearnError" }
        "413": { $ref: "#/components/responses/LearnError" }
        "401": { $ref: "#/components/responses/LearnError" }
        "404": { $ref: "#/components/responses/LearnError" }
        "429": { $ref: "#/components/responses/LearnError" }
        "503": { $ref: "#/components/responses/LearnError" }
  /api/ios/chat:
    post:
      summary: Ask a question of the user's notes (the Learn Assistant's API)
      description: |
        The message is embedded (all-MiniLM-L6-v2); the user's indexed points at least 0.6
        similar, best three, are the sources; the answer comes from ATELIER_CHAT_PROVIDER:
        `local` (default) quotes the closest note and says that no model wrote it, `openai` asks
        an OpenAI-compatible model with the sources and history in the prompt (502 when it fails).
        503 when the API process has no embedding model.
      security: [{ accessToken: [] }]
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [message]
              properties:
                message: { type: string, minLength: 1, maxLength: 4000, pattern: "^[^\\x00]*[^\\s\\x00\\x85][^\\x00]*$" }
                history:
                  type: array
                  maxItems: 100
                  items:
                    type: object
                    required: [role, content]
                    properties:
                      role: { type: string, enum: [user, assistant] }
                      content: { type: string, maxLength: 8000, pattern: "^[^\\x00]*$" }
      responses:
        "200":
          description: the answer and its sources
          content:
            application/json:
              schema:
                type: object
                required: [response, sources]
                properties:
                  response: { type: string }
                  sources:
                    type: array
                    maxItems: 3
                    items:
                      type: object
                      required: [id, question, answer, similarity]
                      properties:
                        id: { type: string }
                        question: { type: string }
                        answer: { type: string }
                        similarity: { type: number, minimum: 0.6, maximum: 1 }
        "400": { $ref: "#/components/responses/LearnError" }
        "413": { $ref: "#/components/responses/LearnError" }
        "401": { $ref: "#/components/responses/LearnError" }
        "429": { $ref: "#/components/responses/LearnError" }
        "502": { $ref: "#/components/responses/LearnError" }
        "503": { $ref: "#/components/responses/LearnError" }
  /v1/search:
    post:
      summary: Semantic search over the caller's indexed items
      description: |
        The query is embedded by all-MiniLM-L6-v2 in the API process and compared with the
        caller's items (indexed by `index` jobs: a `text`, or an image with its `caption`) by
        cosine similarity on pgvector. `similarity` is the cosine clamped to 0…1. 503 when the
        API process has no model (ATELIER_MODEL_DIR unset).
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [query]
              additionalProperties: false
              properties:
                query: { $ref: "#/components/schemas/SearchText" }
                top_k: { type: [integer, "null"], minimum: 1, maximum: 100, default: 5 }
                collection: { oneOf: [{ $ref: "#/components/schemas/CollectionName" }, { type: "null" }] }
                min_similarity: { type: [number, "null"], minimum: 0, maximum: 1, default: 0 }
      responses:
        "200":
          description: the nearest items, most similar first
          content:
            application/json:
              schema:
                type: object
                properties:
                  query: { type: string }
                  total: { type: integer }
                  results:
                    type: array
                    items:
                      type: object
                      properties:
                        id: { type: string, format: uuid }
                        collection: { type: string }
                        source_kind: { type: string, enum: [image, text] }
                        source_key: { type: string }
                        job_id: { type: string, format: uuid, nullable: true }
                        image_path: { type: string, nullable: true }
                        text: { type: string }
                        caption: { type: string, nullable: true }
                        similarity: { type: number, minimum: 0, maximum: 1 }
        "400": { $ref: "#/components/responses/BadRequest" }
        "401": { $ref: "#/components/responses/Unauthorized" }
        "429": { $ref: "#/components/responses/TooManyRequests" }
        "503": { $ref: "#/components/responses/Error" }
  /advisors:
    get:
      summary: Mondrian's advisors (docs/clients.md §2)
      description: Nine photography advisors with their specialty, focus areas and a picture URL.
      responses:
        "200":
          description: the advisors
          content:
            application/json:
              schema:
                type: object
                properties:
                  advisors:
                    type: array
                    items:
                      type: object
                      properties:
                        id: { type: string }
                        name: { type: string }
                        specialty: { type: string }
                        focus_areas: { type: array, items: { type: string } }
                        image_url: { type: string, format: uri }
        "401": { $ref: "#/components/responses/Unauthorized" }
        "429": { $ref: "#/components/responses/TooManyRequests" }
        "503": { $ref: "#/components/responses/Unavailable" }
  /advisor_image/{file}:
    get:
      security: []
      summary: An advisor's generated picture (public, PNG)
      parameters:
        - { name: file, in: path, required: true, schema: { type: string, example: ansel.png } }
      responses:
        "200":
          description: a Mondrian-style composition in the advisor's palette
          content:
            image/png: { schema: { type: string, format: binary } }
        "404": { $ref: "#/components/responses/NotFound" }
  /upload:
    post:
      summary: Mondrian's upload (docs/clients.md §2)
      description: |
        Stores the image and, with `auto_analyze` (default true), enqueues an analysis by the
        chosen advisors; otherwise an `upload` job keeps the image. `auto_index=true` chains an
        index job, enqueued when the analysis succeeds, that reuses its caption. `filename` is
        the signed name the image is served under (`/image/source/{filename}`).
        Honours Idempotency-Key.
      requestBody:
        required: true
        content:
          multipart/form-data:
            schema:
              type: object
              required: [image, advisor]
              additionalProperties: false
              properties:
                image: { type: string, format: binary, description: "JPEG, PNG, HEIC or WebP" }
                advisor: { $ref: "#/components/schemas/AdvisorChoice" }
                auto_analyze: { type: string, enum: ["true", "false"], default: "true" }
                auto_index: { type: string, enum: ["true", "false"], default: "false" }
      responses:
        "200":
          description: the job was accepted
          content:
            application/json:
              schema:
                type: object
                properties:
                  job_id: { type: string, format: uuid }
                  filename: { type: string }
                  advisor: { type: string }
                  advisors_used: { type: array, items: { type: string } }
                  status: { type: string, enum: [queued] }
                  status_url: { type: string, format: uri }
                  stream_url: { type: string, format: uri }
          links:
            Status: { operationRef: "#/paths/~1status~1{id}/get", parameters: { id: "$response.body#/job_id" } }
            Stream: { operationRef: "#/paths/~1stream~1{id}/get", parameters: { id: "$response.body#/job_id" } }
            Analysis: { operationRef: "#/paths/~1analysis~1{id}/get", parameters: { id: "$response.body#/job_id" } }
            SourceImage: { operationRef: "#/paths/~1image~1source~1{filename}/get", parameters: { filename: "$response.body#/filename" } }
            Index:
              operationRef: "#/paths/~1index/post"
              requestBody: { job_id: "$response.body#/job_id", image_path: "source/{$response.body#/filename}" }
        "400": { $ref: "#/components/responses/BadRequest" }
        "401": { $ref: "#/components/responses/Unauthorized" }
        "413": { $ref: "#/components/responses/Error" }
        "415": { $ref: "#/components/responses/Error" }
        "429": { $ref: "#/components/responses/TooManyRequests" }
        "503": { $ref: "#/components/responses/Unavailable" }
  /status/{id}:
    get:
      summary: A Mondrian job's job_data plus job_id
      parameters:
        - { name: id, in: path, required: true, schema: { type: string, format: uuid } }
      responses:
        "200":
          description: the job as it stands
          content:
            application/json:
              schema: { $ref: "#/components/schemas/MondrianJobStatus" }
        "401": { $ref: "#/components/responses/Unauthorized" }
        "404": { $ref: "#/components/responses/NotFound" }
        "429": { $ref: "#/components/responses/TooManyRequests" }
        "503": { $ref: "#/components/responses/Unavailable" }
  /stream/{id}:
    get:
      summary: A Mondrian job's progress as Server-Sent Events
      description: |
        Named events with JSON data: `connected {type, job_id}`, `status_update {type, job_id,
        job_data}`, then at the end `analysis_complete {type, job_id, analysis_html}` (an
        analysis that succeeded) and `done {type, job_id}`. Updates carry the job event's id;
        the end group's parts carry `N.1`, `N.2`, `N.3`. `Last-Event-ID` (or `?last_event_id=`)
        resumes after the event it names; a new connection gets the job as it stands first.
        Keep-alive comments every ATELIER_SSE_KEEPALIVE. A failed or cancelled job sends a
        `status_update` with status `failed` and an `error`, then `done`.
      parameters:
        - { name: id, in: path, required: true, schema: { type: string, format: uuid } }
        - { name: Last-Event-ID, in: header, required: false, description: "an event id of this stream: N, or N.1–N.3 inside the end group", schema: { type: string, pattern: "^ *([0-9]{1,18}|[1-9][0-9]{0,17}\\.[1-3])? *$", example: "42" } }
      responses:
        "200":
          description: the event stream (the schema describes one event, as OpenAPI 3.1 tools read it)
          content:
            text/event-stream:
              schema: { $ref: "#/components/schemas/MondrianStreamEvent" }
        "400": { $ref: "#/components/responses/BadRequest" }
        "401": { $ref: "#/components/responses/Unauthorized" }
        "404": { $ref: "#/components/responses/NotFound" }
        "429": { $ref: "#/components/responses/TooManyRequests" }
        "503": { $ref: "#/components/responses/Unavailable" }
  /analysis/{id}:
    get:
      summary: A finished analysis's self-contained HTML report
      parameters:
        - { name: id, in: path, required: true, schema: { type: string, format: uuid } }
      responses:
        "200":
          description: the report (image preview, 8 dimensions scored out of 10, feedback, recommendations, grade)
          content:
            text/html: { schema: { type: string } }
        "401": { $ref: "#/components/responses/Unauthorized" }
        "404": { $ref: "#/components/responses/NotFound" }
        "409": { $ref: "#/components/responses/Error" }
        "429": { $ref: "#/components/responses/TooManyRequests" }
        "503": { $ref: "#/components/responses/Unavailable" }
  /index:
    post:
      summary: Index a Mondrian upload's image for /search
      description: |
        Indexes the upload's image with the analysis's caption (the vision provider's for an
        upload kept without analysis) and waits for it, up to ATELIER_CAPTION_TIMEOUT (then 504;
        calling again answers the result). An index job already chained or running is waited
        for, a finished one answered, not repeated.
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [job_id, image_path]
              additionalProperties: false
              properties:
                job_id: { type: string, format: uuid }
                image_path: { type: string, pattern: "^source/([^./\\\\]+\\.)*[^./\\\\]+$", description: "source/ + the filename /upload answered" }
      responses:
        "200":
          description: the indexed item
          content:
            application/json:
              schema:
                type: object
                properties:
                  success: { type: boolean }
                  id: { type: string, format: uuid }
                  caption: { type: string }
                  embedding_dim: { type: integer, example: 384 }
        "400": { $ref: "#/components/responses/BadRequest" }
        "401": { $ref: "#/components/responses/Unauthorized" }
        "404": { $ref: "#/components/responses/NotFound" }
        "502": { $ref: "#/components/responses/Error" }
        "503": { $ref: "#/components/responses/Error" }
        "504": { $ref: "#/components/responses/Error" }
        "429": { $ref: "#/components/responses/TooManyRequests" }
  /image/source/{filename}:
    get:
      security: []
      summary: A Mondrian upload's image (public; the signed file name is the permission)
      parameters:
        - { name: filename, in: path, required: true, schema: { type: string } }
      responses:
        "200":
          description: the image as uploaded (ETag, ranges), from the local blob store
          content:
            image/*: { schema: { type: string, format: binary } }
        "302":
          description: with the S3 blob store, a redirect to a fresh pre-signed GET of the image on the object store
          headers:
            Location: { schema: { type: string } }
        "404": { $ref: "#/components/responses/NotFound" }
    head:
      security: []
      summary: The image's headers only
      parameters:
        - { name: filename, in: path, required: true, schema: { type: string } }
      responses:
        "200": { description: the image's headers }
        "302": { description: with the S3 blob store, a redirect to a pre-signed URL on the object store }
        "404": { $ref: "#/components/responses/NotFound" }
  /search:
    post:
      summary: Mondrian's image search (docs/clients.md §2)
      description: |
        The Mondrian app's search: like /v1/search but over the caller's indexed images only,
        answering exactly the app's SearchResponse. `top_k` defaults to 10.
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [query]
              additionalProperties: false
              properties:
                query: { $ref: "#/components/schemas/SearchText" }
                top_k: { type: [integer, "null"], minimum: 1, maximum: 100, default: 10 }
      responses:
        "200":
          description: the nearest images, most similar first
          content:
            application/json:
              schema:
                type: object
                properties:
                  query: { type: string }
                  total: { type: integer }
                  results:
                    type: array
                    items:
                      type: object
                      properties:
                        id: { type: string, format: uuid }
                        job_id: { type: string, format: uuid }
                        image_path: { type: string }
                        caption: { type: string }
                        similarity: { type: number, minimum: 0, maximum: 1 }
        "400": { $ref: "#/components/responses/BadRequest" }
        "401": { $ref: "#/components/responses/Unauthorized" }
        "429": { $ref: "#/components/responses/TooManyRequests" }
        "503": { $ref: "#/components/responses/Error" }
  /v1/documents:
    post:
      summary: Create a knowledge point (question + answer); an index job embeds it
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [question, answer]
              additionalProperties: false
              properties:
                question: { type: string, maxLength: 4000, pattern: "^[^\\x00]*[^\\s\\x00\\x85][^\\x00]*$" }
                answer: { type: string, maxLength: 8000, pattern: "^[^\\x00]*[^\\s\\x00\\x85][^\\x00]*$" }
                collection: { oneOf: [{ $ref: "#/components/schemas/CollectionName" }, { type: "null" }], default: documents }
                metadata: { oneOf: [{ $ref: "#/components/schemas/Metadata" }, { type: "null" }] }
      responses:
        "201":
          description: the document, with index_job_id
          content: { application/json: { schema: { $ref: "#/components/schemas/Document" } } }
          links:
            GetDocument: { operationRef: "#/paths/~1v1~1documents~1{id}/get", parameters: { id: "$response.body#/id" } }
            UpdateDocument: { operationRef: "#/paths/~1v1~1documents~1{id}/put", parameters: { id: "$response.body#/id" } }
            DeleteDocument: { operationRef: "#/paths/~1v1~1documents~1{id}/delete", parameters: { id: "$response.body#/id" } }
            GetIndexJob: { operationRef: "#/paths/~1v1~1jobs~1{id}/get", parameters: { id: "$response.body#/index_job_id" } }
        "400": { $ref: "#/components/responses/BadRequest" }
        "401": { $ref: "#/components/responses/Unauthorized" }
        "429": { $ref: "#/components/responses/TooManyRequests" }
        "503": { $ref: "#/components/responses/Unavailable" }
    get:
      summary: The caller's documents, newest first (page, limit, collection)
      parameters:
        - { name: page, in: query, required: false, schema: { type: integer, minimum: 1, maximum: 1000000, default: 1 } }
        - { name: limit, in: query, required: false, schema: { type: integer, minimum: 1, maximum: 100, default: 20 } }
        - { name: collection, in: query, required: false, schema: { $ref: "#/components/schemas/CollectionName" } }
      responses:
        "200": { description: "{data: [Document], pagination}" }
        "401": { $ref: "#/components/responses/Unauthorized" }
        "429": { $ref: "#/components/responses/TooManyRequests" }
        "503": { $ref: "#/components/responses/Unavailable" }
        "400": { $ref: "#/components/responses/BadRequest" }
  /v1/documents/search:
    post:
      summary: Documents by meaning (defaults top_k 3, min_similarity 0.6)
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [query]
              additionalProperties: false
              properties:
                query: { $ref: "#/components/schemas/SearchText" }
                top_k: { type: [integer, "null"], minimum: 1, maximum: 50, default: 3 }
                min_similarity: { type: [number, "null"], minimum: 0, maximum: 1, default: 0.6 }
                collection: { oneOf: [{ $ref: "#/components/schemas/CollectionName" }, { type: "null" }], default: documents }
      responses:
        "200": { description: "{query, results: [{document, similarity}], total}" }
        "400": { $ref: "#/components/responses/BadRequest" }
        "503": { $ref: "#/components/responses/Error" }
        "401": { $ref: "#/components/responses/Unauthorized" }
        "429": { $ref: "#/components/responses/TooManyRequests" }
  /v1/documents/{id}:
    parameters:
      - { name: id, in: path, required: true, schema: { type: string, format: uuid } }
    get:
      summary: One document (`indexed` says whether its vector is stored)
      responses:
        "200": { description: the document, content: { application/json: { schema: { $ref: "#/components/schemas/Document" } } } }
        "404": { $ref: "#/components/responses/Error" }
        "401": { $ref: "#/components/responses/Unauthorized" }
        "429": { $ref: "#/components/responses/TooManyRequests" }
        "503": { $ref: "#/components/responses/Unavailable" }
    put:
      summary: Change question, answer or metadata; re-indexed by a new job (the last edit wins)
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              additionalProperties: false
              description: at least one of question, answer, metadata (null means unchanged)
              anyOf:
                - { required: [question], properties: { question: { type: string } } }
                - { required: [answer], properties: { answer: { type: string } } }
                - { required: [metadata], properties: { metadata: { type: object } } }
              properties:
                question: { type: [string, "null"], maxLength: 4000, pattern: "^[^\\x00]*[^\\s\\x00\\x85][^\\x00]*$" }
                answer: { type: [string, "null"], maxLength: 8000, pattern: "^[^\\x00]*[^\\s\\x00\\x85][^\\x00]*$" }
                metadata: { oneOf: [{ $ref: "#/components/schemas/Metadata" }, { type: "null" }] }
      responses:
        "200": { description: "the document, with index_job_id" }
        "400": { $ref: "#/components/responses/BadRequest" }
        "404": { $ref: "#/components/responses/Error" }
        "401": { $ref: "#/components/responses/Unauthorized" }
        "429": { $ref: "#/components/responses/TooManyRequests" }
        "503": { $ref: "#/components/responses/Unavailable" }
    delete:
      summary: Delete the document and its vector
      responses:
        "204": { description: deleted }
        "404": { $ref: "#/components/responses/Error" }
        "401": { $ref: "#/components/responses/Unauthorized" }
        "429": { $ref: "#/components/responses/TooManyRequests" }
        "503": { $ref: "#/components/responses/Unavailable" }
components:
  securitySchemes:
    appToken: { type: apiKey, in: header, name: X-App-Token }
    bearer: { type: http, scheme: bearer }
    accessToken: { type: http, scheme: bearer, bearerFormat: JWT, description: a user's access token (not an app token) }
  responses:
    KnowledgePointAnswer:
      description: the point
      content:
        application/json:
          schema:
            type: object
            required: [point]
            properties:
              point: { $ref: "#/components/schemas/KnowledgePoint" }
    LearnSuccess:
      description: done
      content:
        application/json:
          schema:
            type: object
            required: [success]
            properties:
              success: { type: boolean, const: true }
    LearnError:
      description: the Learn Assistant's error shape
      content:
        application/json:
          schema:
            type: object
            required: [error]
            properties:
              error: { type: string, example: Invalid identity token }
    FleetError:
      description: the fleet app's error shape
      content:
        application/json:
          schema:
            type: object
            required: [error, message]
            properties:
              error: { type: string, example: Unauthorized }
              message: { type: string, example: Token expired or invalid }
              code: { type: string, example: TOKEN_EXPIRED }
              details: { type: object, additionalProperties: { type: string } }
              retryAfter: { type: integer }
              requestId: { type: string }
    CaptionError:
      description: the caption API's error shape
      content:
        application/json:
          schema:
            type: object
            properties:
              success: { type: boolean }
              error:
                type: object
                properties:
                  code: { type: string, enum: [AUTH_001, VAL_001, AI_001, METHOD_001, RATE_001] }
                  message: { type: string }
                  timestamp: { type: string, example: "2024-01-20T14:30:00Z", description: ISO 8601 in whole seconds }
    Error:
      description: error
      content:
        application/json:
          schema: { $ref: "#/components/schemas/Error" }
    BadRequest:
      description: invalid input (details.field names the field)
      content:
        application/json:
          schema: { $ref: "#/components/schemas/Error" }
    Unauthorized:
      description: no credential, or not a live token
      content:
        application/json:
          schema: { $ref: "#/components/schemas/Error" }
    Forbidden:
      description: expired or tampered signed URL; an operator route without the admin role
      content:
        application/json:
          schema: { $ref: "#/components/schemas/Error" }
    NotFound:
      description: no such job for this caller (also for malformed ids and other owners' jobs)
      content:
        application/json:
          schema: { $ref: "#/components/schemas/Error" }
    Unavailable:
      description: the database cannot be reached right now (answered within 3 s while it is down), or the costly work this request needs (an image probe, a password check, an embedding) has no room in its lane (BusyError, at once); Retry-After says when to retry
      headers:
        Retry-After: { schema: { type: string } }
      content:
        application/json:
          schema: { $ref: "#/components/schemas/Error" }
    TooManyRequests:
      description: a rate limit, quota or stream limit was reached (the error names which); Retry-After says when to retry
      content:
        application/json:
          schema: { $ref: "#/components/schemas/Error" }
  schemas:
    {{JOB_BODY_SCHEMAS}}: {}
    KnowledgePoint:
      type: object
      required: [id, userId, question, answer, createdAt, updatedAt, isInReviewPlan]
      properties:
        id: { type: string }
        userId: { type: string }
        question: { type: string }
        answer: { type: string }
        createdAt: { type: string, example: "2024-01-01T00:00:00Z" }
        updatedAt: { type: string, example: "2024-01-01T00:00:00Z" }
        isInReviewPlan: { type: boolean }
    Base64Image:
      type: string
      contentEncoding: base64
      contentMediaType: image/*
      description: "a JPEG, PNG, HEIC or WebP image in base64 (a data: URI prefix is allowed)"
    JobOptions:
      type: object
      description: options a kind that reads none still carries (kept in the job's payload); not `input`
      additionalProperties: { $ref: "#/components/schemas/OptionValue" }
      propertyNames: { $ref: "#/components/schemas/OptionName" }
    OptionName: { type: string, not: { const: input }, maxLength: 64 }
    OptionValue: {}
    AdvisorChoice:
      type: string
      description: an advisor id, all, random, or advisor ids separated by commas
      pattern: "^ *(all|random|({{ADVISORS}})( *, *({{ADVISORS}}))*) *$"
      examples: [ansel, all, random, "ansel,hcb"]
    StyleParams:
      type: object
      description: each 0…1; other names are ignored
      properties:
        intensity: { type: number, minimum: 0, maximum: 1 }
        eyes: { type: number, minimum: 0, maximum: 1 }
        nose: { type: number, minimum: 0, maximum: 1 }
        mouth: { type: number, minimum: 0, maximum: 1 }
        jaw: { type: number, minimum: 0, maximum: 1 }
    Warp:
      type: array
      maxItems: 32
      description: |
        Distortions in pixels of the upright upload, origin top-left, applied in order before the
        style (Core Image's CIBumpDistortion / CIPinchDistortion).
      items:
        oneOf:
          - type: object
            required: [type, x, y, radius, scale]
            properties:
              type: { const: bump }
              x: { type: number, minimum: -100000, maximum: 100000 }
              y: { type: number, minimum: -100000, maximum: 100000 }
              radius: { type: number, minimum: 1, maximum: 100000 }
              scale: { type: number, minimum: -1, maximum: 1 }
          - type: object
            required: [type, x, y, radius, scale]
            properties:
              type: { const: pinch }
              x: { type: number, minimum: -100000, maximum: 100000 }
              y: { type: number, minimum: -100000, maximum: 100000 }
              radius: { type: number, minimum: 1, maximum: 100000 }
              scale: { type: number, minimum: 0, maximum: 2 }
    CollectionName: { type: string, pattern: "^[A-Za-z0-9_.-]{1,64}$" }
    SearchText: { type: string, maxLength: 2000, pattern: "[^\\s\\x85]", description: "not blank" }
    SourceKey: { type: string, minLength: 1, maxLength: 200, pattern: "^[^\\x00-\\x1f\\x7f-\\x9f]+$" }
    Metadata:
      type: object
      description: a JSON object of at most 8 KB; PostgreSQL stores no NUL character, so none in its keys or strings
      propertyNames: { $ref: "#/components/schemas/TextWithoutNUL" }
      additionalProperties: { $ref: "#/components/schemas/JSONWithoutNUL" }
    TextWithoutNUL: { type: string, pattern: "^[^\\x00]*$" }
    JSONWithoutNUL:
      anyOf:
        - { $ref: "#/components/schemas/TextWithoutNUL" }
        - { type: [number, boolean, "null"] }
        - { type: array, items: { $ref: "#/components/schemas/JSONWithoutNUL" } }
        - { type: object, propertyNames: { $ref: "#/components/schemas/TextWithoutNUL" }, additionalProperties: { $ref: "#/components/schemas/JSONWithoutNUL" } }
    JobStreamEvent:
      description: |
        One event of /v1/jobs/{id}/events: first `snapshot` (the job; no id), then the job's
        events with their id and type, their data a JSON object.
      oneOf:
        - type: object
          required: [event, data]
          properties:
            event: { const: snapshot }
            data: { type: string, contentMediaType: application/json, contentSchema: { $ref: "#/components/schemas/Job" } }
        - type: object
          required: [event, data, id]
          properties:
            event:
              type: string
              not: { const: snapshot }
              pattern: "^[a-z_]+$"
              examples: [running, progress, retrying, requeued, cancel_requested, succeeded, failed, cancelled]
            id: { type: string, pattern: "^[0-9]+$" }
            data: { type: string, contentMediaType: application/json, contentSchema: { type: object } }
    MondrianStreamEvent:
      description: |
        One event of Mondrian's /stream/{id}: `connected`, `status_update`s (the job event's id; the
        end group's parts `N.1`, `N.2`, `N.3`), `analysis_complete`, `done`.
      oneOf:
        - type: object
          required: [event, data]
          properties:
            event: { const: connected }
            data:
              type: string
              contentMediaType: application/json
              contentSchema:
                type: object
                required: [type, job_id]
                properties:
                  type: { const: connected }
                  job_id: { type: string, format: uuid }
        - type: object
          required: [event, data]
          properties:
            event: { const: status_update }
            id: { type: string, pattern: "^[0-9]+(\\.1)?$" }
            data:
              type: string
              contentMediaType: application/json
              contentSchema:
                type: object
                required: [type, job_id, job_data]
                properties:
                  type: { const: status_update }
                  job_id: { type: string, format: uuid }
                  job_data: { $ref: "#/components/schemas/MondrianJobData" }
        - type: object
          required: [event, data, id]
          properties:
            event: { const: analysis_complete }
            id: { type: string, pattern: "^[0-9]+\\.2$" }
            data:
              type: string
              contentMediaType: application/json
              contentSchema:
                type: object
                required: [type, job_id, analysis_html]
                properties:
                  type: { const: analysis_complete }
                  job_id: { type: string, format: uuid }
                  analysis_html: { type: string }
        - type: object
          required: [event, data, id]
          properties:
            event: { const: done }
            id: { type: string, pattern: "^[0-9]+\\.3$" }
            data:
              type: string
              contentMediaType: application/json
              contentSchema:
                type: object
                required: [type, job_id]
                properties:
                  type: { const: done }
                  job_id: { type: string, format: uuid }
    MondrianJobData:
      type: object
      description: "Mondrian's job_data (docs/clients.md §2)"
      required: [status, progress_percentage]
      properties:
        status: { type: string, enum: [queued, analyzing, indexing, processing, completed, failed] }
        progress_percentage: { type: integer, minimum: 0, maximum: 100 }
        current_step: { type: string, example: Conjuring Ansel Adams }
        current_advisor: { type: integer }
        total_advisors: { type: integer }
        step_phase: { type: string, example: analyzing }
        error: { type: string }
    MondrianJobStatus:
      type: object
      description: "Mondrian's job_data plus job_id"
      properties:
        job_id: { type: string, format: uuid }
        status: { type: string, enum: [queued, analyzing, indexing, processing, completed, failed] }
        progress_percentage: { type: integer, minimum: 0, maximum: 100 }
        current_step: { type: string, example: Conjuring Ansel Adams }
        current_advisor: { type: integer }
        total_advisors: { type: integer }
        step_phase: { type: string, example: analyzing }
        error: { type: string }
    Document:
      type: object
      properties:
        id: { type: string, format: uuid }
        collection: { type: string }
        question: { type: string }
        answer: { type: string }
        metadata: { type: object, additionalProperties: true }
        indexed: { type: boolean }
        index_job_id: { type: string, format: uuid, nullable: true }
        created_at: { type: string, format: date-time }
        updated_at: { type: string, format: date-time }
    Error:
      type: object
      required: [error, message]
      properties:
        error: { type: string, examples: [ValidationError, AuthenticationError, NotFoundError, RateLimitError] }
        message: { type: string }
        details: { type: object, additionalProperties: { type: string } }
        retryAfter: { type: integer, description: "429: seconds to wait, the same as the Retry-After header" }
        requestId: { type: string, description: "500: the request's X-Request-ID, to quote" }
    CreatedJob:
      type: object
      required: [id, kind, status, status_url, stream_url]
      properties:
        id: { type: string, format: uuid }
        kind: { type: string }
        status: { type: string, enum: [pending, succeeded, failed] }
        status_url: { type: string, format: uri }
        stream_url: { type: string, format: uri }
    Job:
      type: object
      required: [id, kind, status, state, progress, result_url, error, created_at, status_url, stream_url]
      properties:
        id: { type: string, format: uuid }
        kind: { type: string }
        status: { type: string, enum: [pending, succeeded, failed], description: "queued/running → pending; cancelled → failed" }
        state: { type: string, enum: [queued, running, succeeded, failed, cancelled] }
        progress: { type: integer, minimum: 0, maximum: 100 }
        progress_step: { type: [string, "null"] }
        result: { type: [object, "null"], additionalProperties: true }
        result_url: { type: [string, "null"], format: uri, description: pre-signed, expiring, no auth needed }
        error: { type: [string, "null"] }
        attempt: { type: integer }
        max_attempts: { type: integer }
        request_id: { type: [string, "null"] }
        parent_id: { type: [string, "null"], format: uuid }
        created_at: { type: string, format: date-time }
        started_at: { type: [string, "null"], format: date-time }
        finished_at: { type: [string, "null"], format: date-time }
        status_url: { type: string, format: uri }
        stream_url: { type: string, format: uri }
    JobPage:
      type: object
      required: [data, pagination]
      properties:
        data: { type: array, items: { $ref: "#/components/schemas/Job" } }
        pagination:
          type: object
          required: [page, limit, total, pages, hasNextPage, hasPreviousPage]
          properties:
            page: { type: integer }
            limit: { type: integer }
            total: { type: integer }
            pages: { type: integer }
            hasNextPage: { type: boolean }
            hasPreviousPage: { type: boolean }
    Health:
      type: object
      required: [status, timestamp, version, checks]
      properties:
        status: { type: string, enum: [healthy, degraded] }
        timestamp: { type: string, format: date-time }
        version: { type: string }
        checks:
          type: object
          properties:
            database: { type: string, enum: [ok, error] }
            storage: { type: string, enum: [ok, error] }
            listener: { type: string, enum: [ok, error] }
        message: { type: string }
"""#
}
