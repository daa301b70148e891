//! Regular expressions of consumer-group subscriptions (`SubscribedTopicRegex`), read as Kafka 4.4.0
//! reads them: with Google's RE2J 1.8 (`com.google.re2j.Pattern`), Perl flags, full matches.
//!
//! regroup uses Rust's `regex` crate, which shares RE2's design (linear time, no backtracking, no
//! backreferences or look-around) but not all of its syntax nor its error texts. This module puts a
//! RE2J expression into the form `regex` reads the same way, and answers RE2J's
//! `PatternSyntaxException.getDescription()` for the expressions RE2J refuses:
//! * rewritten before parsing: `\Q...\E` quoting, octal escapes (`\0`, `\12`), a `{` that does not
//!   start a valid repetition (a literal in RE2J, an error in `regex`), `\<` and `\>` (escaped
//!   punctuation in RE2J, word boundaries in `regex`), and inside a class a `[` that does not open a
//!   POSIX class and the `&&`/`~~` pairs (literals in RE2J, nested classes and set operations in
//!   `regex`);
//! * refused where `regex` accepts what RE2J does not: stacked repetition operators (`a**`, `a{2}*`,
//!   also after a literal `{`), repetition counts above 1000, the flags `x`, `u`, `R`, the `\u`/`\U`
//!   escapes, unknown one-letter `\pX` classes, `\x`/`\p` cut off at the end, group names with other
//!   than word characters; a repetition right after a flag group (`a(?i)*`) applies to what precedes
//!   the group, as in RE2J;
//! * `regex`'s own parse errors mapped to RE2J's descriptions (`missing closing )`, ...; an
//!   unopened `)` is RE2J's `regexp/syntax: internal error`).
//!
//! RE2J reads left to right and reports the first error it meets (an unclosed group only at the
//! end); so do the rewrite's own refusals, checked against what `regex` finds before them.
//!
//! What remains different is in docs/divergences.md (a class's `--`, a repetition of a repetition
//! across a flag group).

use regex_syntax::ast::{self, Ast, ErrorKind};

/// RE2J's error descriptions (`com.google.re2j.Parser`).
const ERR_INTERNAL: &str = "regexp/syntax: internal error";
const ERR_INVALID_CHAR_RANGE: &str = "invalid character class range";
const ERR_INVALID_ESCAPE: &str = "invalid escape sequence";
const ERR_INVALID_NAMED_CAPTURE: &str = "invalid named capture";
const ERR_INVALID_PERL_OP: &str = "invalid or unsupported Perl syntax";
const ERR_INVALID_REPEAT_OP: &str = "invalid nested repetition operator";
const ERR_INVALID_REPEAT_SIZE: &str = "invalid repeat count";
const ERR_MISSING_BRACKET: &str = "missing closing ]";
const ERR_MISSING_PAREN: &str = "missing closing )";
const ERR_MISSING_REPEAT_ARGUMENT: &str = "missing argument to repetition operator";
const ERR_TRAILING_BACKSLASH: &str = "trailing backslash at end of expression";
const ERR_DUPLICATE_NAMED_CAPTURE: &str = "duplicate capture group name";

/// RE2J's largest repetition count (`Parser.MAX_REPEAT`... its `{n,m}` limit).
const MAX_REPEAT: u32 = 1000;

/// A subscription regex that compiled: it matches whole topic names (`Matcher.matches()`).
#[derive(Debug, Clone)]
pub struct TopicRegex {
    matcher: regex::Regex,
}

impl TopicRegex {
    /// `Pattern.compile(regex)`; `Err` is RE2J's `getDescription()`.
    pub fn compile(re2j: &str) -> Result<Self, &'static str> {
        let rewritten = to_rust_syntax(re2j);
        let parse = |rust: &str| {
            ast::parse::ParserBuilder::new()
                .nest_limit(1000)
                .build()
                .parse(rust)
                .map_err(|e| {
                    // `(?` at the very end: RE2J stops at the unknown group syntax, `regex` at the
                    // missing `)`.
                    let at = e.span().start.offset;
                    let kind = e.kind().clone();
                    if kind == ErrorKind::GroupUnclosed && rust.get(at..) == Some("(?") {
                        (kind, ERR_INVALID_PERL_OP)
                    } else {
                        let d = describe(&kind);
                        (kind, d)
                    }
                })
        };
        if let Some(error) = rewritten.error {
            // RE2J reads left to right: an error before this one wins, but an unclosed group is
            // only noticed at the end.
            return match parse(&rewritten.rust) {
                Err((kind, d)) if kind != ErrorKind::GroupUnclosed || d == ERR_INVALID_PERL_OP => {
                    Err(d)
                }
                _ => Err(error),
            };
        }
        let rust = rewritten.rust;
        let parsed = parse(&rust).map_err(|(_, d)| d)?;
        check_re2j_only_rules(&parsed)?;
        // Unknown Unicode classes (`\p{Foo}`) are found when the expression is translated.
        regex_syntax::hir::translate::TranslatorBuilder::new()
            .build()
            .translate(&rust, &parsed)
            .map_err(|e| match e.kind() {
                regex_syntax::hir::ErrorKind::UnicodePropertyNotFound
                | regex_syntax::hir::ErrorKind::UnicodePropertyValueNotFound
                | regex_syntax::hir::ErrorKind::UnicodePerlClassNotFound
                | regex_syntax::hir::ErrorKind::UnicodeCaseUnavailable => ERR_INVALID_CHAR_RANGE,
                _ => ERR_INVALID_PERL_OP,
            })?;
        let matcher = regex::RegexBuilder::new(&format!(r"\A(?:{rust})\z"))
            .size_limit(64 << 20)
            .build()
            // Only size limits are left to fail here; RE2J has none, so such an expression is
            // accepted and matches nothing regroup can compute (docs/divergences.md).
            .unwrap_or_else(|_| regex::Regex::new(r"[^\s\S]").expect("a valid expression"));
        Ok(Self { matcher })
    }

    /// `regex.matcher(topicName).matches()`.
    pub fn matches(&self, topic: &str) -> bool {
        self.matcher.is_match(topic)
    }
}

/// `Utils.throwIfRegularExpressionIsInvalid`: INVALID_REGULAR_EXPRESSION with Kafka's message.
pub fn throw_if_regular_expression_is_invalid(regex: &str) -> Result<(), crate::error::ApiError> {
    match TopicRegex::compile(regex) {
        Ok(_) => Ok(()),
        Err(description) => Err(crate::error::ApiError::new(
            protocol::ErrorCode::InvalidRegularExpression,
            format!(
                "SubscribedTopicRegex `{regex}` is not a valid regular expression: {description}."
            ),
        )),
    }
}

/// RE2J's description for one of `regex-syntax`'s parse errors.
fn describe(kind: &ErrorKind) -> &'static str {
    match kind {
        ErrorKind::ClassUnclosed => ERR_MISSING_BRACKET,
        ErrorKind::GroupUnclosed => ERR_MISSING_PAREN,
        // RE2J's parser pops an empty stack: its message is an internal error.
        ErrorKind::GroupUnopened => ERR_INTERNAL,
        ErrorKind::EscapeUnexpectedEof => ERR_TRAILING_BACKSLASH,
        ErrorKind::RepetitionMissing => ERR_MISSING_REPEAT_ARGUMENT,
        ErrorKind::RepetitionCountInvalid
        | ErrorKind::DecimalEmpty
        | ErrorKind::DecimalInvalid
        | ErrorKind::RepetitionCountDecimalEmpty
        | ErrorKind::RepetitionCountUnclosed => ERR_INVALID_REPEAT_SIZE,
        ErrorKind::ClassRangeInvalid | ErrorKind::UnicodeClassInvalid => ERR_INVALID_CHAR_RANGE,
        ErrorKind::ClassEscapeInvalid
        | ErrorKind::ClassRangeLiteral
        | ErrorKind::EscapeHexEmpty
        | ErrorKind::EscapeHexInvalid
        | ErrorKind::EscapeHexInvalidDigit
        | ErrorKind::EscapeUnrecognized
        | ErrorKind::SpecialWordBoundaryUnclosed
        | ErrorKind::SpecialWordBoundaryUnrecognized
        | ErrorKind::SpecialWordOrRepetitionUnexpectedEof
        | ErrorKind::UnsupportedBackreference => ERR_INVALID_ESCAPE,
        ErrorKind::GroupNameDuplicate { .. } => ERR_DUPLICATE_NAMED_CAPTURE,
        ErrorKind::GroupNameEmpty
        | ErrorKind::GroupNameInvalid
        | ErrorKind::GroupNameUnexpectedEof => ERR_INVALID_NAMED_CAPTURE,
        _ => ERR_INVALID_PERL_OP,
    }
}

/// What `regex` accepts and RE2J refuses, found on the parsed expression.
fn check_re2j_only_rules(ast: &Ast) -> Result<(), &'static str> {
    match ast {
        Ast::Repetition(r) => {
            if matches!(*r.ast, Ast::Repetition(_)) {
                return Err(ERR_INVALID_REPEAT_OP);
            }
            if let ast::RepetitionKind::Range(range) = &r.op.kind {
                let (lo, hi) = match *range {
                    ast::RepetitionRange::Exactly(n) => (n, n),
                    ast::RepetitionRange::AtLeast(n) => (n, n),
                    ast::RepetitionRange::Bounded(a, b) => (a, b),
                };
                if lo > MAX_REPEAT || hi > MAX_REPEAT {
                    return Err(ERR_INVALID_REPEAT_SIZE);
                }
            }
            check_re2j_only_rules(&r.ast)
        }
        Ast::Group(g) => {
            match &g.kind {
                ast::GroupKind::NonCapturing(flags) => check_flags(flags)?,
                // RE2J's names are word characters only; `regex` also takes `.`, `[` and `]`.
                ast::GroupKind::CaptureName { name, .. }
                    if !name
                        .name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_') =>
                {
                    return Err(ERR_INVALID_NAMED_CAPTURE);
                }
                _ => {}
            }
            check_re2j_only_rules(&g.ast)
        }
        Ast::Flags(f) => check_flags(&f.flags),
        Ast::Literal(l) => match l.kind {
            ast::LiteralKind::HexFixed(ast::HexLiteralKind::UnicodeShort)
            | ast::LiteralKind::HexFixed(ast::HexLiteralKind::UnicodeLong)
            | ast::LiteralKind::HexBrace(ast::HexLiteralKind::UnicodeShort)
            | ast::LiteralKind::HexBrace(ast::HexLiteralKind::UnicodeLong) => {
                Err(ERR_INVALID_ESCAPE)
            }
            _ => Ok(()),
        },
        Ast::Assertion(a) => match a.kind {
            ast::AssertionKind::StartLine
            | ast::AssertionKind::EndLine
            | ast::AssertionKind::StartText
            | ast::AssertionKind::EndText
            | ast::AssertionKind::WordBoundary
            | ast::AssertionKind::NotWordBoundary => Ok(()),
            _ => Err(ERR_INVALID_ESCAPE),
        },
        Ast::Alternation(a) => a.asts.iter().try_for_each(check_re2j_only_rules),
        Ast::Concat(c) => c.asts.iter().try_for_each(check_re2j_only_rules),
        _ => Ok(()),
    }
}

/// RE2J knows the flags `i`, `m`, `s` and `U` only.
fn check_flags(flags: &ast::Flags) -> Result<(), &'static str> {
    for item in &flags.items {
        if let ast::FlagsItemKind::Flag(
            ast::Flag::IgnoreWhitespace | ast::Flag::Unicode | ast::Flag::CRLF,
        ) = item.kind
        {
            return Err(ERR_INVALID_PERL_OP);
        }
    }
    Ok(())
}

/// Whether `chars[i..]` starts a repetition RE2J reads as one: `{n}`, `{n,}` or `{n,m}`.
fn repeat_at(chars: &[char], i: usize) -> Option<usize> {
    let mut j = i + 1;
    let digits = |j: &mut usize| {
        let s = *j;
        while *j < chars.len() && chars[*j].is_ascii_digit() {
            *j += 1;
        }
        *j > s
    };
    if !digits(&mut j) {
        return None;
    }
    if j < chars.len() && chars[j] == ',' {
        j += 1;
        digits(&mut j);
    }
    (j < chars.len() && chars[j] == '}').then_some(j + 1)
}

/// The previous item, for RE2J's check of stacked repetitions.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Last {
    /// An operand, a group, an assertion, or nothing.
    Other,
    /// A repetition operator that may still take a `?` (non-greedy).
    Repeat,
    /// A repetition operator already made non-greedy, or a `{` read as a literal (RE2J counts it as
    /// a repetition here: `a{*` is refused as a nested repetition).
    RepeatDone,
}

/// What [`to_rust_syntax`] found.
struct Rewritten {
    /// The expression in `regex`'s syntax, up to the first error RE2J finds on the way (if any).
    rust: String,
    /// The first error RE2J finds before reaching the end, which `regex` would miss or report
    /// elsewhere: stacked repetitions, `\x`/`\p` at the end, an unknown one-letter `\pX`, an unknown
    /// POSIX class. Errors `regex` finds in `rust` come first (RE2J reads left to right), except an
    /// unclosed group, which RE2J only notices at the end.
    error: Option<&'static str>,
}

/// An escape at `chars[i]` (a `\` with something after it) that RE2J refuses there, in the middle of
/// the expression, where `regex` would refuse it at the end or not at all.
fn escape_error(chars: &[char], i: usize) -> Option<&'static str> {
    let n = chars[i + 1];
    let next = chars.get(i + 2).copied();
    let closed = || chars[i + 2..].contains(&'}');
    match (n, next) {
        ('u' | 'U', _) | ('x', None) => Some(ERR_INVALID_ESCAPE),
        ('x', Some('{')) if !closed() => Some(ERR_INVALID_ESCAPE),
        // `\xHH` needs two hex digits.
        ('x', Some(h))
            if h != '{'
                && !(h.is_ascii_hexdigit()
                    && chars.get(i + 3).is_some_and(char::is_ascii_hexdigit)) =>
        {
            Some(ERR_INVALID_ESCAPE)
        }
        ('p' | 'P', None) => Some(ERR_INVALID_CHAR_RANGE),
        ('p' | 'P', Some('{')) if !closed() => Some(ERR_INVALID_CHAR_RANGE),
        // An unknown name, refused where it stands (`regex` only finds it after parsing).
        ('p' | 'P', Some('{')) => {
            let name: String = chars[i + 3..].iter().take_while(|c| **c != '}').collect();
            let known = ast::parse::Parser::new()
                .parse(&format!("\\p{{{name}}}"))
                .ok()
                .is_some_and(|a| {
                    regex_syntax::hir::translate::Translator::new()
                        .translate(&format!("\\p{{{name}}}"), &a)
                        .is_ok()
                });
            (!known).then_some(ERR_INVALID_CHAR_RANGE)
        }
        ('p' | 'P', Some(c)) if c != '{' && !"CLMNPSZ".contains(c) => Some(ERR_INVALID_CHAR_RANGE),
        _ => None,
    }
}

/// Go's octal escape at `chars[i]` (`\0` and up to two more octal digits, or a non-zero digit
/// followed by an octal one; a lone `\1` is a backreference): `regex`'s `\x{..}` and the index after
/// it.
fn octal_at(chars: &[char], i: usize) -> Option<(String, usize)> {
    let n = chars[i + 1];
    let starts_octal = n == '0'
        || (('1'..='7').contains(&n) && chars.get(i + 2).is_some_and(|d| ('0'..='7').contains(d)));
    if !starts_octal {
        return None;
    }
    let mut j = i + 1;
    let mut value = 0u32;
    while j < chars.len() && j < i + 4 && ('0'..='7').contains(&chars[j]) {
        value = value * 8 + chars[j].to_digit(8).unwrap_or(0);
        j += 1;
    }
    Some((format!("\\x{{{value:X}}}"), j))
}

/// RE2J's syntax in `regex`'s: see the module documentation.
fn to_rust_syntax(re: &str) -> Rewritten {
    let chars: Vec<char> = re.chars().collect();
    let mut out = String::with_capacity(re.len() + 8);
    let mut i = 0;
    let mut last = Last::Other;
    let stop = |out: String, e: &'static str| Rewritten {
        rust: out,
        error: Some(e),
    };
    // A flag group (`(?i)`) is no operand for RE2J: a repetition right after it applies to what came
    // before it. `regex` refuses that, so the flags are written after such a repetition.
    let mut pending_flags = String::new();
    while i < chars.len() {
        let c = chars[i];
        let is_repeat =
            matches!(c, '*' | '+' | '?') || (c == '{' && repeat_at(&chars, i).is_some());
        if !is_repeat && !pending_flags.is_empty() {
            out.push_str(&pending_flags);
            pending_flags.clear();
        }
        match c {
            '\\' if i + 1 == chars.len() => {
                out.push('\\');
                i += 1;
                last = Last::Other;
                continue;
            }
            '\\' => {
                let n = chars[i + 1];
                last = Last::Other;
                match n {
                    'Q' => {
                        // A literal up to `\E` or the end.
                        let mut j = i + 2;
                        while j < chars.len()
                            && !(chars[j] == '\\' && chars.get(j + 1) == Some(&'E'))
                        {
                            out.push_str(&regex_syntax::escape(&chars[j].to_string()));
                            j += 1;
                        }
                        i = if j < chars.len() { j + 2 } else { j };
                        continue;
                    }
                    '0'..='7' => {
                        if let Some((hex, end)) = octal_at(&chars, i) {
                            out.push_str(&hex);
                            i = end;
                            continue;
                        }
                        out.push('\\');
                        out.push(n);
                        i += 2;
                        continue;
                    }
                    '<' | '>' => {
                        out.push(n);
                        i += 2;
                        continue;
                    }
                    _ if escape_error(&chars, i).is_some() => {
                        return stop(out, escape_error(&chars, i).unwrap_or(ERR_INVALID_ESCAPE));
                    }
                    'p' | 'P' | 'x' if chars.get(i + 2) == Some(&'{') => {
                        let mut j = i + 2;
                        while j < chars.len() && chars[j] != '}' {
                            j += 1;
                        }
                        let end = (j + 1).min(chars.len());
                        out.extend(&chars[i..end]);
                        i = end;
                        continue;
                    }
                    _ => {
                        out.push('\\');
                        out.push(n);
                        i += 2;
                        continue;
                    }
                }
            }
            '[' => {
                let mark = out.len();
                match class_to_rust(&chars, i, &mut out) {
                    Ok(end) => i = end,
                    Err(e) => {
                        // What comes before the error is checked by `regex`, the class so far
                        // closed where the error is (an error in it comes first).
                        if matches!(&out[mark..], "[" | "[^") {
                            out.truncate(mark);
                        } else {
                            out.push(']');
                        }
                        return stop(out, e);
                    }
                }
                last = Last::Other;
                continue;
            }
            '(' if chars.get(i + 1) == Some(&'?') => {
                let mut j = i + 2;
                while j < chars.len() && "imsU-".contains(chars[j]) {
                    j += 1;
                }
                if chars.get(j) == Some(&')') {
                    pending_flags.extend(&chars[i..=j]);
                    i = j + 1;
                } else {
                    out.push_str("(?");
                    i += 2;
                }
                last = Last::Other;
                continue;
            }
            '*' | '+' | '?' | '{' => {
                let repeat_end = match c {
                    '{' => repeat_at(&chars, i),
                    _ => Some(i + 1),
                };
                match (repeat_end, last) {
                    // A `?` right after an operator makes it non-greedy.
                    (Some(_), Last::Repeat) if c == '?' => {
                        out.push('?');
                        last = Last::RepeatDone;
                    }
                    (Some(_), Last::Repeat | Last::RepeatDone) => {
                        return stop(out, ERR_INVALID_REPEAT_OP);
                    }
                    (Some(end), Last::Other) => {
                        out.extend(&chars[i..end]);
                        i = end;
                        last = Last::Repeat;
                        continue;
                    }
                    (None, _) => {
                        out.push_str("\\{");
                        last = Last::RepeatDone;
                    }
                }
            }
            _ => {
                out.push(c);
                last = Last::Other;
            }
        }
        i += 1;
    }
    out.push_str(&pending_flags);
    Rewritten {
        rust: out,
        error: None,
    }
}

/// Copies the class opening at `chars[start]` (`[`) in `regex`'s syntax; returns the index after it
/// (the end of the input when it is unclosed, which `regex` then refuses as RE2J does).
fn class_to_rust(chars: &[char], start: usize, out: &mut String) -> Result<usize, &'static str> {
    out.push('[');
    let mut i = start + 1;
    if chars.get(i) == Some(&'^') {
        out.push('^');
        i += 1;
    }
    // A `]` first is a literal.
    if chars.get(i) == Some(&']') {
        out.push_str("\\]");
        i += 1;
    }
    while i < chars.len() {
        let c = chars[i];
        match c {
            ']' => {
                out.push(']');
                return Ok(i + 1);
            }
            '\\' if i + 1 < chars.len() => {
                let n = chars[i + 1];
                if let Some(e) = escape_error(chars, i) {
                    return Err(e);
                }
                // Assertions and quoting have no meaning in a class: RE2J refuses them there.
                if "AbBzQE".contains(n) {
                    return Err(ERR_INVALID_ESCAPE);
                }
                if let Some((hex, end)) = octal_at(chars, i) {
                    out.push_str(&hex);
                    i = end;
                    continue;
                }
                if matches!(n, '<' | '>') {
                    // Escaped punctuation in RE2J; `regex` has no such escape in a class.
                    out.push(n);
                    i += 2;
                    continue;
                }
                if matches!(n, 'p' | 'P' | 'x') && chars.get(i + 2) == Some(&'{') {
                    let mut j = i + 2;
                    while j < chars.len() && chars[j] != '}' {
                        j += 1;
                    }
                    let end = (j + 1).min(chars.len());
                    out.extend(&chars[i..end]);
                    i = end;
                } else if matches!(n, 'p' | 'P') {
                    // A one-letter class name (`\pL`), checked by `escape_error`.
                    out.extend(&chars[i..i + 3]);
                    i += 3;
                } else {
                    out.push('\\');
                    out.push(n);
                    i += 2;
                }
                // After a class escape (`\d`, `\pL`, ...) RE2J reads a `-` as a literal (Perl
                // syntax); `regex` would read a range from a class and refuse it.
                if matches!(n, 'd' | 'D' | 's' | 'S' | 'w' | 'W' | 'p' | 'P')
                    && chars.get(i) == Some(&'-')
                    && chars.get(i + 1).is_some_and(|c| *c != ']')
                {
                    out.push_str("\\-");
                    i += 1;
                }
            }
            '[' if chars.get(i + 1) == Some(&':') => {
                // A POSIX class `[:name:]`: RE2J refuses an unknown name, where `regex` would read a
                // nested class; without a closing `:]` the `[` is a literal.
                let mut j = i + 2;
                while j + 1 < chars.len() && !(chars[j] == ':' && chars[j + 1] == ']') {
                    j += 1;
                }
                if j + 1 >= chars.len() {
                    out.push_str("\\[");
                    i += 1;
                    continue;
                }
                let name: String = chars[i + 2..j].iter().collect();
                if !POSIX_CLASSES.contains(&name.strip_prefix('^').unwrap_or(&name)) {
                    return Err(ERR_INVALID_CHAR_RANGE);
                }
                out.extend(&chars[i..j + 2]);
                i = j + 2;
            }
            '[' => {
                out.push_str("\\[");
                i += 1;
            }
            '&' | '~' if chars.get(i + 1) == Some(&c) => {
                out.push('\\');
                out.push(c);
                out.push('\\');
                out.push(c);
                i += 2;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(i)
}

/// The POSIX classes RE2J knows (`[[:alpha:]]`, also negated `[[:^alpha:]]`).
const POSIX_CLASSES: &[&str] = &[
    "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct",
    "space", "upper", "word", "xdigit",
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The answers of RE2J 1.8 (`Pattern.compile(r)`, `getDescription()`), printed by a Java program
    /// against the oracle's `re2j-1.8.jar` (docs/consumer.md, "Regular-expression subscriptions").
    const RE2J: &[(&str, Option<&str>)] = &[
        ("(abc", Some(ERR_MISSING_PAREN)),
        ("abc)", Some(ERR_INTERNAL)),
        ("[abc", Some(ERR_MISSING_BRACKET)),
        ("abc\\", Some(ERR_TRAILING_BACKSLASH)),
        ("*abc", Some(ERR_MISSING_REPEAT_ARGUMENT)),
        ("a**", Some(ERR_INVALID_REPEAT_OP)),
        ("a*+", Some(ERR_INVALID_REPEAT_OP)),
        ("a+?*", Some(ERR_INVALID_REPEAT_OP)),
        ("a{2}*", Some(ERR_INVALID_REPEAT_OP)),
        ("a{2}{3}", Some(ERR_INVALID_REPEAT_OP)),
        ("a{1001}", Some(ERR_INVALID_REPEAT_SIZE)),
        ("a{1000}", None),
        ("a{3,2}", Some(ERR_INVALID_REPEAT_SIZE)),
        ("a{", None),
        ("a{,5}", None),
        ("a{2", None),
        ("{2}", Some(ERR_MISSING_REPEAT_ARGUMENT)),
        ("\\Q.*\\E", None),
        ("(?x)a", Some(ERR_INVALID_PERL_OP)),
        ("(?u)a", Some(ERR_INVALID_PERL_OP)),
        ("(?i)a", None),
        ("(?P<n>a)", None),
        ("(?<n>a)", None),
        ("(?P<n>a)(?P<n>b)", Some(ERR_DUPLICATE_NAMED_CAPTURE)),
        ("(?P<>a)", Some(ERR_INVALID_NAMED_CAPTURE)),
        ("(?=a)", Some(ERR_INVALID_PERL_OP)),
        ("(?!a)", Some(ERR_INVALID_PERL_OP)),
        ("a\\1", Some(ERR_INVALID_ESCAPE)),
        ("\\u0041", Some(ERR_INVALID_ESCAPE)),
        ("\\x41", None),
        ("\\Z", Some(ERR_INVALID_ESCAPE)),
        ("\\z", None),
        ("[z-a]", Some(ERR_INVALID_CHAR_RANGE)),
        ("[[:foo:]]", Some(ERR_INVALID_CHAR_RANGE)),
        ("\\p{Foo}", Some(ERR_INVALID_CHAR_RANGE)),
        ("\\pN", None),
        ("[a-\\d]", Some(ERR_INVALID_ESCAPE)),
        ("(?", Some(ERR_INVALID_PERL_OP)),
        ("(?i", Some(ERR_INVALID_PERL_OP)),
        ("\\b{start}", None),
        ("\\<", None),
        ("[a&&b]", None),
        ("[a[b]]", None),
        ("\\12", None),
        ("\\0", None),
        ("(?P=n)", Some(ERR_INVALID_PERL_OP)),
        ("a|*", Some(ERR_MISSING_REPEAT_ARGUMENT)),
        ("|a", None),
        ("()", None),
        ("a||b", None),
        ("x{0}", None),
        (".*", None),
        ("topic-.*", None),
        ("^foo$", None),
        ("\\d+", None),
        ("[\\b]", Some(ERR_INVALID_ESCAPE)),
        ("\\C", Some(ERR_INVALID_ESCAPE)),
        ("\\8", Some(ERR_INVALID_ESCAPE)),
        ("(?m)^a$", None),
        ("a{,}", None),
        ("(?P<a.b>x)", Some(ERR_INVALID_NAMED_CAPTURE)),
        ("(a{1000}){1000}", None),
        ("((((a))))", None),
        ("a{1000,}", None),
        ("x{2,1001}", Some(ERR_INVALID_REPEAT_SIZE)),
        ("\\Qab", None),
        ("[\\Q]\\E]", Some(ERR_INVALID_ESCAPE)),
        ("\\pZ", None),
        ("\\p{Latin}", None),
        ("[[:^alpha:]]", None),
        ("(?i:a)", None),
        ("(?-i)a", None),
        ("(?i-s)a", None),
        ("(?U)a*", None),
        ("a{0,0}", None),
        ("\\x{110000}", Some(ERR_INVALID_ESCAPE)),
        ("\\x{10FFFF}", None),
        ("[a-a]", None),
        ("^*", None),
        ("$+", None),
        ("(?:)*", None),
        ("(|a)*", None),
        ("**", Some(ERR_MISSING_REPEAT_ARGUMENT)),
        ("a|b|", None),
        ("[^]", Some(ERR_MISSING_BRACKET)),
        ("[]", Some(ERR_MISSING_BRACKET)),
        ("\\", Some(ERR_TRAILING_BACKSLASH)),
        ("(?i)(?P<Name_1>x)", None),
        ("\\pL+", None),
        ("\\b*", None),
        ("a*?+", Some(ERR_INVALID_REPEAT_OP)),
        ("a??", None),
        ("(?s).", None),
        ("\\A\\z", None),
        ("[\\d-z]", None),
        ("[a-\\z]", Some(ERR_INVALID_ESCAPE)),
        ("x{,}", None),
        // From random expressions where a first version differed: error order, `{` then an
        // operator, escapes at the end, a repetition after a flag group, `\>` in a class.
        ("p(?i)*q", None),
        ("fss9q|roq&<\\u", Some(ERR_INVALID_ESCAPE)),
        ("_P90t[^)o?s\\0", Some(ERR_MISSING_BRACKET)),
        ("z\\p{f^[aD9+P", Some(ERR_INVALID_CHAR_RANGE)),
        ("1**)x^>(", Some(ERR_INVALID_REPEAT_OP)),
        ("{*", Some(ERR_INVALID_REPEAT_OP)),
        ("b^[E~\\>$]w", None),
    ];

    #[test]
    fn validity_and_descriptions_are_re2js() {
        let mut wrong = Vec::new();
        for (re, want) in RE2J {
            let got = TopicRegex::compile(re).err();
            if got != *want {
                wrong.push(format!("{re}: regroup {got:?}, RE2J {want:?}"));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn matches_whole_names_with_re2j_literals() {
        let m = |re: &str, t: &str| TopicRegex::compile(re).unwrap().matches(t);
        assert!(m("topic-.*", "topic-a"));
        assert!(!m("topic", "topic-a"), "a full match, not a search");
        assert!(m("a|b", "b"));
        assert!(
            !m("a|b", "ab"),
            "the alternation is grouped before anchoring"
        );
        assert!(m("a{", "a{"));
        assert!(m("a{,5}", "a{,5}"));
        assert!(m("\\Q.*\\E", ".*"));
        assert!(!m("\\Q.*\\E", "ab"));
        assert!(m("\\12x", "\nx"));
        assert!(m("[a[b]]", "[]"));
        assert!(m("[a&&b]", "&"));
        assert!(m("(?i)TOPIC", "topic"));
        assert!(m("\\<", "<"));
    }

    proptest::proptest! {
        /// Any expression at all is answered (valid or RE2J's description), never with a panic.
        #[test]
        fn any_expression_is_answered_without_a_panic(re in "[-a-z()\\[\\]{}|*+?.^$\\\\:&~<>,0-9QEPpdxu]{0,24}") {
            if let Ok(m) = TopicRegex::compile(&re) {
                let _ = m.matches("topic-1");
            }
        }
    }

    #[test]
    fn kafkas_message() {
        let e = throw_if_regular_expression_is_invalid("[a-").unwrap_err();
        assert_eq!(e.code, protocol::ErrorCode::InvalidRegularExpression);
        assert_eq!(
            e.message.as_deref(),
            Some(
                "SubscribedTopicRegex `[a-` is not a valid regular expression: missing closing ]."
            )
        );
        assert!(throw_if_regular_expression_is_invalid("t.*").is_ok());
    }
}
