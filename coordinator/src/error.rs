//! Errors a shard answers with: Kafka's `ApiException`s, i.e. an error code plus the exception's
//! message. The message is part of the behaviour (clients log it, tests assert it), so handlers build
//! them with Kafka's exact wording.

use protocol::ErrorCode;

/// An error answered to a client, as Kafka's `Errors.forException(e)` + `e.getMessage()`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub code: ErrorCode,
    /// The exception message; `None` where Kafka sends none (e.g. unexpected exceptions mapped to
    /// UNKNOWN_SERVER_ERROR).
    pub message: Option<String>,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: Some(message.into()),
        }
    }

    /// An error created as `Errors.X.exception()`: it carries Kafka's default message for the code.
    pub fn with_default_message(code: ErrorCode) -> Self {
        Self {
            code,
            message: Some(code.default_message().to_string()),
        }
    }

    /// An error without a message.
    pub fn bare(code: ErrorCode) -> Self {
        Self {
            code,
            message: None,
        }
    }

    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidRequest, message)
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.message {
            Some(m) => write!(f, "{}: {}", self.code.name(), m),
            None => f.write_str(self.code.name()),
        }
    }
}

impl std::error::Error for ApiError {}
