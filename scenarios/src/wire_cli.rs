//! `regroup wire`: look at Kafka frames the way regroup reads and writes them.
//!
//! * `regroup wire sample <Api> [--version N] [--response] [--hex]` prints the smallest legal
//!   instance of a message as a whole frame (size prefix, header with correlation id 0 and
//!   client id "", body with every number zero and every array holding one element).
//! * `regroup wire decode [--response --api <Api> --version N] <HEX | ->` parses a frame and
//!   prints its byte layout and object tree; bad input names the offset where parsing failed.
//!
//! Exit codes: 0 on success, 2 on bad input (clap's usage errors are 2 as well).

use std::io::{Read, Write};

use clap::{Args, Subcommand};
use protocol::Api;
use protocol::schema::render::{render_layout, render_tree};
use protocol::schema::sample::sample_frame;
use protocol::schema::walk::{WalkedFrame, walk_request_frame, walk_response_frame};
use protocol::schema::{self, Direction};

/// Exit code for bad input.
pub const EXIT_BAD_INPUT: i32 = 2;

#[derive(Debug, Args)]
pub struct WireArgs {
    #[command(subcommand)]
    pub command: WireCommand,
}

#[derive(Debug, Subcommand)]
pub enum WireCommand {
    /// Print the smallest legal frame of a message (numbers zero, strings empty, one element
    /// per array) with its byte layout and object tree.
    Sample {
        /// Api name (any case, e.g. BrokerHeartbeat) or numeric key (63).
        api: String,
        /// Version to encode (default: the highest regroup serves).
        #[arg(long)]
        version: Option<i16>,
        /// The response instead of the request.
        #[arg(long)]
        response: bool,
        /// Print only the frame, as one line of lowercase hex.
        #[arg(long, conflicts_with = "json")]
        hex: bool,
        /// Print only the body, as Kafka-style JSON.
        #[arg(long)]
        json: bool,
    },
    /// Parse a frame (size prefix included) given as hex, or read the hex from stdin with `-`.
    Decode {
        /// Parse a response; needs --api (responses do not name their api).
        #[arg(long, requires = "api")]
        response: bool,
        /// Api of the response (name or key). For a request it is read from the header.
        #[arg(long)]
        api: Option<String>,
        /// Version of the response (default: the highest regroup serves).
        #[arg(long)]
        version: Option<i16>,
        /// Print only the body, as Kafka-style JSON.
        #[arg(long)]
        json: bool,
        /// The frame as hex (spaces allowed), or `-` to read it from stdin.
        frame: String,
    },
}

fn parse_api(text: &str) -> Result<Api, String> {
    Api::parse(text).ok_or_else(|| {
        format!("unknown api '{text}': give a name such as BrokerHeartbeat or a key such as 63 (regroup serves: {})",
            Api::ALL.iter().map(|a| a.name()).collect::<Vec<_>>().join(", "))
    })
}

fn pick_version(api: Api, version: Option<i16>) -> Result<i16, String> {
    let v = version.unwrap_or(api.max_version());
    if !api.supports(v) {
        return Err(format!(
            "{api} version {v} is not served (regroup serves {}-{})",
            api.min_version(),
            api.max_version()
        ));
    }
    Ok(v)
}

fn parse_hex(text: &str) -> Result<Vec<u8>, String> {
    let trimmed = text.trim();
    let trimmed = trimmed.strip_prefix("0x").unwrap_or(trimmed);
    let mut digits = Vec::with_capacity(trimmed.len());
    for (i, c) in trimmed.char_indices() {
        if c.is_whitespace() {
            continue;
        }
        if !c.is_ascii_hexdigit() {
            return Err(format!("invalid hex: character {c:?} at position {i}"));
        }
        digits.push(c as u8);
    }
    if digits.len() % 2 != 0 {
        return Err(format!(
            "invalid hex: odd number of digits ({})",
            digits.len()
        ));
    }
    Ok(digits
        .chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap_or("00"), 16).unwrap_or(0))
        .collect())
}

fn describe(walked: &WalkedFrame, frame: &[u8]) -> String {
    let api = walked.api;
    let header = match walked.direction {
        Direction::Request => format!(
            "request header v{}",
            api.request_header_version(walked.version)
        ),
        Direction::Response => format!(
            "response header v{}",
            api.response_header_version(walked.version)
        ),
    };
    let name = schema::message(api, walked.direction).name;
    let mut out = String::new();
    out.push_str(&format!(
        "{api} (api key {}), versions {}-{} served, flexible from v{}\n",
        api.key(),
        api.min_version(),
        api.max_version(),
        api.first_flexible_version()
    ));
    out.push_str(&format!(
        "{name} v{}, {header}, {} bytes on the wire\n\n",
        walked.version,
        frame.len()
    ));
    out.push_str(&render_layout(frame, &walked.tree));
    out.push_str("\nobject tree\n\n");
    out.push_str(&render_tree(&walked.tree));
    if walked.trailing > 0 {
        out.push_str(&format!(
            "\nnote: {} trailing bytes after the body (Kafka ignores them)\n",
            walked.trailing
        ));
    }
    out
}

fn walk(
    direction: Direction,
    api: Option<Api>,
    version: Option<i16>,
    frame: &[u8],
) -> Result<WalkedFrame, String> {
    match direction {
        Direction::Request => {
            let walked = walk_request_frame(frame).map_err(|e| e.to_string())?;
            if let Some(api) = api
                && api != walked.api
            {
                return Err(format!(
                    "the header names {} but --api says {api}",
                    walked.api
                ));
            }
            if let Some(v) = version
                && v != walked.version
            {
                return Err(format!(
                    "the header says version {} but --version says {v}",
                    walked.version
                ));
            }
            // The typed decoder must agree with the walker.
            protocol::request::decode_request_frame(bytes::Bytes::copy_from_slice(&frame[4..]))
                .map_err(|e| e.to_string())?;
            Ok(walked)
        }
        Direction::Response => {
            let api = api.ok_or("--response needs --api")?;
            let version = pick_version(api, version)?;
            let walked = walk_response_frame(api, version, frame).map_err(|e| e.to_string())?;
            protocol::response::decode_response_frame(
                api,
                version,
                bytes::Bytes::copy_from_slice(&frame[4..]),
            )
            .map_err(|e| e.to_string())?;
            Ok(walked)
        }
    }
}

fn execute(args: WireArgs, stdin: &mut dyn Read) -> Result<String, String> {
    match args.command {
        WireCommand::Sample {
            api,
            version,
            response,
            hex,
            json,
        } => {
            let api = parse_api(&api)?;
            let version = pick_version(api, version)?;
            let direction = if response {
                Direction::Response
            } else {
                Direction::Request
            };
            let frame = sample_frame(api, direction, version).map_err(|e| e.to_string())?;
            if hex {
                return Ok(format!("{}\n", hex::encode(&frame)));
            }
            let walked = walk(direction, Some(api), Some(version), &frame)?;
            if json {
                return Ok(format!(
                    "{}\n",
                    serde_json::to_string_pretty(&walked.json).map_err(|e| e.to_string())?
                ));
            }
            Ok(describe(&walked, &frame))
        }
        WireCommand::Decode {
            response,
            api,
            version,
            json,
            frame,
        } => {
            let text = if frame == "-" {
                let mut s = String::new();
                stdin
                    .read_to_string(&mut s)
                    .map_err(|e| format!("reading stdin: {e}"))?;
                s
            } else {
                frame
            };
            let bytes = parse_hex(&text)?;
            let api = api.as_deref().map(parse_api).transpose()?;
            let direction = if response {
                Direction::Response
            } else {
                Direction::Request
            };
            let walked = walk(direction, api, version, &bytes)?;
            if json {
                return Ok(format!(
                    "{}\n",
                    serde_json::to_string_pretty(&walked.json).map_err(|e| e.to_string())?
                ));
            }
            Ok(describe(&walked, &bytes))
        }
    }
}

/// Runs `regroup wire`, writing to `out`/`err`, and returns the exit code.
pub fn run_with(
    args: WireArgs,
    stdin: &mut dyn Read,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    match execute(args, stdin) {
        Ok(text) => {
            let _ = out.write_all(text.as_bytes());
            0
        }
        Err(message) => {
            let _ = writeln!(err, "error: {message}");
            EXIT_BAD_INPUT
        }
    }
}

/// Runs `regroup wire` on the process's stdin/stdout/stderr and returns the exit code.
pub fn run(args: WireArgs) -> i32 {
    run_with(
        args,
        &mut std::io::stdin().lock(),
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_input_is_forgiving_about_spaces_and_strict_about_digits() {
        assert_eq!(parse_hex("0x00 0a\nff").unwrap(), vec![0, 10, 255]);
        assert_eq!(
            parse_hex("0g").unwrap_err(),
            "invalid hex: character 'g' at position 1"
        );
        assert!(parse_hex("abc").is_err());
    }
}
