import HTTPTypes

extension HTTPField.Name {
    static let xRequestID = HTTPField.Name("X-Request-ID")!
    static let xResponseTime = HTTPField.Name("X-Response-Time")!
    static let xAppToken = HTTPField.Name("X-App-Token")!
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
    static let lastEventID = HTTPField.Name("Last-Event-ID")!
    static let xRateLimitLimit = HTTPField.Name("X-RateLimit-Limit")!
    static let xRateLimitRemaining = HTTPField.Name("X-RateLimit-Remaining")!
    static let xRateLimitReset = HTTPField.Name("X-RateLimit-Reset")!
    static let xAccelBuffering = HTTPField.Name("X-Accel-Buffering")!
    static let idempotentReplayed = HTTPField.Name("Idempotent-Replayed")!
}
