//! `java.lang.String`: `hashCode` and `compareTo`.

use std::cmp::Ordering;

/// `String.hashCode()`: `s[0]*31^(n-1) + ... + s[n-1]` over UTF-16 code units, in wrapping 32-bit arithmetic.
pub fn string_hash(s: &str) -> i32 {
    if s.is_ascii() {
        // ASCII characters are single UTF-16 units with the same value as the byte. Four at a time:
        // h*31^4 + (b0*31^3 + b1*31^2 + b2*31 + b3) is the same sum, with a shorter dependency chain.
        let bytes = s.as_bytes();
        let mut chunks = bytes.chunks_exact(4);
        let mut h = 0i32;
        for c in &mut chunks {
            let block = i32::from(c[0])
                .wrapping_mul(29_791)
                .wrapping_add(i32::from(c[1]).wrapping_mul(961))
                .wrapping_add(i32::from(c[2]).wrapping_mul(31))
                .wrapping_add(i32::from(c[3]));
            h = h.wrapping_mul(923_521).wrapping_add(block);
        }
        return chunks
            .remainder()
            .iter()
            .fold(h, |h, &b| h.wrapping_mul(31).wrapping_add(i32::from(b)));
    }
    s.encode_utf16().fold(0i32, |h, unit| {
        h.wrapping_mul(31).wrapping_add(i32::from(unit))
    })
}

/// `String.compareTo`: lexicographic over UTF-16 code units, a proper prefix sorting first.
pub fn compare_strings(a: &str, b: &str) -> Ordering {
    if a.is_ascii() && b.is_ascii() {
        return a.as_bytes().cmp(b.as_bytes());
    }
    a.encode_utf16().cmp(b.encode_utf16())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_hash_matches_java_values() {
        // Values of "".hashCode(), "a".hashCode(), "hello".hashCode(), "Aa"/"BB" (a known collision) and a
        // string with a supplementary character, which Java hashes as its surrogate pair.
        assert_eq!(string_hash(""), 0);
        assert_eq!(string_hash("a"), 97);
        assert_eq!(string_hash("hello"), 99_162_322);
        assert_eq!(string_hash("Aa"), string_hash("BB"));
        assert_eq!(string_hash("\u{1F600}"), 0xD83D * 31 + 0xDE00);
        // The four-at-a-time ASCII path against the plain definition.
        for s in ["abcdefg", "0123456789abcdef", "member-12345", "xyz"] {
            let plain = s
                .bytes()
                .fold(0i32, |h, b| h.wrapping_mul(31).wrapping_add(i32::from(b)));
            assert_eq!(string_hash(s), plain, "{s}");
        }
    }

    #[test]
    fn compare_strings_uses_utf16_units() {
        // U+FF61 is one unit 0xFF61; U+10000 is the pair 0xD800 0xDC00, so Java sorts it first even though
        // its code point is larger.
        assert_eq!(compare_strings("\u{10000}", "\u{FF61}"), Ordering::Less);
        assert_eq!(compare_strings("ab", "abc"), Ordering::Less);
        assert_eq!(compare_strings("b", "abc"), Ordering::Greater);
    }
}
