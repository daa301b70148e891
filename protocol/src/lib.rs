//! regroup's wire: framing, headers, api keys and versions, error codes, messages.
