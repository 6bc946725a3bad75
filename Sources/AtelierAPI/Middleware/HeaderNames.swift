import HTTPTypes

extension HTTPField.Name {
    package static let xRequestID = HTTPField.Name("X-Request-ID")!
    package static let xResponseTime = HTTPField.Name("X-Response-Time")!
    package static let xAppToken = HTTPField.Name("X-App-Token")!
    package static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
    package static let lastEventID = HTTPField.Name("Last-Event-ID")!
    package static let xRateLimitLimit = HTTPField.Name("X-RateLimit-Limit")!
    package static let xRateLimitRemaining = HTTPField.Name("X-RateLimit-Remaining")!
    package static let xRateLimitReset = HTTPField.Name("X-RateLimit-Reset")!
    package static let xAccelBuffering = HTTPField.Name("X-Accel-Buffering")!
    package static let xForwardedProto = HTTPField.Name("X-Forwarded-Proto")!
    package static let idempotentReplayed = HTTPField.Name("Idempotent-Replayed")!
}
