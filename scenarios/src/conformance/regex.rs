//! Subscription regexes against RE2J, the engine Kafka 4.4.0's coordinator compiles them with: random
//! expressions built from regex syntax (`--regex N`, `--regex-seed`), answered by the oracle's
//! `Re2jCheck` (RE2J 1.8's `Pattern.compile` and `Matcher.matches()`) and by regroup's
//! `TopicRegex::compile`, compared line by line: valid or not, RE2J's description of the error, and
//! which of a fixed list of topic names a valid one matches.
//!
//! The two differences docs/divergences.md lists are not generated: `--` inside a class, and a
//! repetition right after a flag group.

use std::path::Path;

use coordinator::consumer::topic_regex::TopicRegex;

use super::dice::Dice;
use super::oracle::{Oracle, RE2J_CHECK_MAIN};

/// The names valid expressions are matched against.
const TOPICS: &str = "foo,bar,foo.bar,f-1,topic_9,zz,a,ab,abc,1,-,_,.,fo,foooo,Qux,qux0,b.a,a-b,t6";

/// What expressions are made of: single characters of the syntax and a few whole constructs.
const PIECES: &[&str] = &[
    "a",
    "b",
    "f",
    "o",
    "q",
    "t",
    "z",
    "0",
    "1",
    "9",
    ".",
    "-",
    "_",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "|",
    "*",
    "+",
    "?",
    "^",
    "$",
    "\\",
    ":",
    ",",
    "d",
    "w",
    "s",
    "p",
    "P",
    "Q",
    "E",
    "x",
    "u",
    "&",
    "~",
    "<",
    ">",
    "[:alpha:]",
    "{2}",
    "{1,3}",
    "(?i)",
    "(?:",
    "\\d",
    "\\pL",
    "\\p{Greek}",
    "(?P<n>",
    ".*",
    "\\Q",
    "\\E",
    "\\12",
    "[^",
    "(?i:",
];

/// The outcome of one regex comparison.
#[derive(Debug, Clone)]
pub struct RegexReport {
    pub expressions: usize,
    pub seed: u64,
    /// Expressions RE2J accepts.
    pub valid: usize,
    pub differences: usize,
    /// The first few differences: (expression, regroup, Kafka).
    pub examples: Vec<(String, String, String)>,
    pub millis: u128,
}

impl RegexReport {
    pub fn summary(&self) -> String {
        let mut s = format!(
            "regex: {} random expressions (seed {}, {} valid for RE2J), {} differ from RE2J 1.8 ({} ms)",
            self.expressions, self.seed, self.valid, self.differences, self.millis
        );
        for (re, ours, theirs) in &self.examples {
            s.push_str(&format!(
                "\n--- regex {re:?}\n    regroup: {ours}\n    kafka:   {theirs}"
            ));
        }
        s
    }
}

/// One random expression (never one of the known differences, never a line break).
fn expression(dice: &mut Dice) -> String {
    loop {
        let n = dice.int(1, 12) as usize;
        let re: String = (0..n).map(|_| *dice.pick(PIECES)).collect();
        let flag_then_repeat = ["(?i)*", "(?i)+", "(?i)?", "(?i){"]
            .iter()
            .any(|p| re.contains(p));
        if !re.contains("--") && !flag_then_repeat {
            return re;
        }
    }
}

/// regroup's answer, in `Re2jCheck`'s format.
pub fn answer(re: &str) -> String {
    match TopicRegex::compile(re) {
        Ok(m) => {
            let mut out = "ok ".to_string();
            for t in TOPICS.split(',') {
                if m.matches(t) {
                    out.push_str(t);
                    out.push(' ');
                }
            }
            out
        }
        Err(description) => format!("ERR {description}"),
    }
}

/// Compares `count` random expressions (seed `seed`) with RE2J; the expressions go to
/// `dir/regex-inputs.txt`.
pub fn compare(
    oracle: &Oracle,
    count: usize,
    seed: u64,
    dir: &Path,
) -> Result<RegexReport, String> {
    let started = std::time::Instant::now();
    let mut dice = Dice::new(seed, 7);
    let expressions: Vec<String> = (0..count).map(|_| expression(&mut dice)).collect();
    let path = dir.join("regex-inputs.txt");
    let mut text = expressions.join("\n");
    text.push('\n');
    std::fs::write(&path, text).map_err(|e| format!("cannot write regex inputs: {e}"))?;
    let kafka = oracle.output(
        RE2J_CHECK_MAIN,
        &[path.display().to_string(), TOPICS.to_string()],
        &[0],
    )?;
    let kafka: Vec<&str> = kafka.lines().collect();
    if kafka.len() != count {
        return Err(format!(
            "regex oracle: expected {count} answers, got {}",
            kafka.len()
        ));
    }
    let mut report = RegexReport {
        expressions: count,
        seed,
        valid: kafka.iter().filter(|l| l.starts_with("ok")).count(),
        differences: 0,
        examples: Vec::new(),
        millis: 0,
    };
    for (re, theirs) in expressions.iter().zip(&kafka) {
        let ours = answer(re);
        if ours != *theirs {
            report.differences += 1;
            if report.examples.len() < 3 {
                report.examples.push((re.clone(), ours, theirs.to_string()));
            }
        }
    }
    report.millis = started.elapsed().as_millis();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_in_re2j_checks_format() {
        assert_eq!(answer("f.*"), "ok foo foo.bar f-1 fo foooo ");
        assert_eq!(answer("(?i)qux"), "ok Qux ");
        assert_eq!(answer("["), "ERR missing closing ]");
    }

    #[test]
    fn expressions_are_seeded_and_skip_the_known_differences() {
        let draw = |seed| {
            let mut dice = Dice::new(seed, 7);
            (0..500).map(|_| expression(&mut dice)).collect::<Vec<_>>()
        };
        assert_eq!(draw(3), draw(3));
        assert_ne!(draw(3), draw(4));
        assert!(
            draw(3)
                .iter()
                .all(|r| !r.contains("--") && !r.contains("(?i)*") && !r.contains('\n'))
        );
    }
}
