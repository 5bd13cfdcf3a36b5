//! Wide scanning for the validating pass: the content of a string 64 bytes at a time, with
//! escapes resolved by bit arithmetic instead of a branch per byte (the technique of simdjson,
//! Langdale and Lemire, "Parsing Gigabytes of JSON per Second", 2019).
//!
//! [`skip_string_body`] only ever answers "this string is valid and ends here" or "ask the
//! byte-at-a-time decoder": anything unusual (a `\u` escape, an invalid escape, a control
//! character, the end of the text) falls back to [`super::parse::Parser::parse_string`] from the
//! string's start, so every error keeps its code, message, line and column. The property
//! tests compare both paths on generated strings.
//!
//! On x86_64 the byte classes are found with SSE2 (part of the x86_64 baseline, so no runtime
//! detection is needed); elsewhere, with a portable loop over the bytes.

/// The byte classes of one 64-byte block, one bit per byte (bit `i` is byte `i`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Masks {
    /// `"`
    pub(super) quote: u64,
    /// `\`
    pub(super) backslash: u64,
    /// A control character (below 0x20): never allowed raw in a string.
    pub(super) control: u64,
    /// The letters of the short escapes other than `\"` and `\\`: `/ b f n r t`.
    pub(super) letter: u64,
}

const BLOCK: usize = 64;

/// The classes of the bytes of `b` by the plain definition (the reference for the wide one).
#[cfg(any(test, not(target_arch = "x86_64")))]
pub(super) fn masks_portable(b: &[u8; BLOCK]) -> Masks {
    let mut m = Masks {
        quote: 0,
        backslash: 0,
        control: 0,
        letter: 0,
    };
    for (i, &c) in b.iter().enumerate() {
        let bit = 1u64 << i;
        match c {
            b'"' => m.quote |= bit,
            b'\\' => m.backslash |= bit,
            0..=0x1f => m.control |= bit,
            b'/' | b'b' | b'f' | b'n' | b'r' | b't' => m.letter |= bit,
            _ => {}
        }
    }
    m
}

#[cfg(target_arch = "x86_64")]
pub(super) fn masks(b: &[u8; BLOCK]) -> Masks {
    use core::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    // SAFETY: SSE2 is part of the x86_64 baseline; every load reads 16 bytes inside `b`
    // (offsets 0, 16, 32, 48 of a 64-byte array), unaligned loads being allowed.
    unsafe {
        let eq = |v: __m128i, c: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8));
        let bits = |v: __m128i| u64::from(_mm_movemask_epi8(v) as u16);
        let mut m = Masks {
            quote: 0,
            backslash: 0,
            control: 0,
            letter: 0,
        };
        let below = _mm_set1_epi8(0x1f);
        for k in 0..4 {
            let v = _mm_loadu_si128(b.as_ptr().add(16 * k).cast::<__m128i>());
            let shift = 16 * k;
            m.quote |= bits(eq(v, b'"')) << shift;
            m.backslash |= bits(eq(v, b'\\')) << shift;
            // max(v, 0x1f) == 0x1f exactly when v <= 0x1f (unsigned).
            m.control |= bits(_mm_cmpeq_epi8(_mm_max_epu8(v, below), below)) << shift;
            let l = _mm_or_si128(
                _mm_or_si128(_mm_or_si128(eq(v, b'/'), eq(v, b'b')), eq(v, b'f')),
                _mm_or_si128(_mm_or_si128(eq(v, b'n'), eq(v, b'r')), eq(v, b't')),
            );
            m.letter |= bits(l) << shift;
        }
        m
    }
}

#[cfg(not(target_arch = "x86_64"))]
pub(super) fn masks(b: &[u8; BLOCK]) -> Masks {
    masks_portable(b)
}

/// The bytes of a block that are escaped (preceded by an odd run of backslashes), given
/// whether the block's first byte is escaped by the previous block (`carry` 0 or 1). Returns
/// them and the carry into the next block. Branch-free: the sum of the starts of the runs and
/// the runs carries out of each run, and the parity of where a run starts and ends tells
/// whether it is odd.
pub(super) fn escaped(backslash: u64, carry: u64) -> (u64, u64) {
    const ODD: u64 = 0xAAAA_AAAA_AAAA_AAAA;
    let potential = backslash & !carry;
    let maybe_escaped = potential << 1;
    let codes = ((maybe_escaped | ODD).wrapping_sub(potential)) ^ ODD;
    let escaped = codes ^ (backslash | carry);
    let escape = codes & backslash;
    (escaped, escape >> 63)
}

/// The reference for [`escaped`]: one byte at a time.
#[cfg(test)]
pub(super) fn escaped_portable(backslash: u64, carry: u64) -> (u64, u64) {
    let mut out = 0u64;
    let mut esc = carry == 1;
    for i in 0..64 {
        let bit = 1u64 << i;
        if esc {
            out |= bit;
            esc = false;
        } else if backslash & bit != 0 {
            esc = true;
        }
    }
    (out, u64::from(esc))
}

/// The end (one past the closing `"`) of the string whose content starts at `from` (just after
/// the opening quote), when the content is plain text and short escapes only; `None` when the
/// byte-at-a-time decoder must decide (a `\u` escape, anything invalid, the end of the text).
pub(super) fn skip_string_body(b: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    let mut carry = 0u64;
    loop {
        let rest = b.get(i..)?;
        let n = rest.len().min(BLOCK);
        let m = match rest.first_chunk::<BLOCK>() {
            Some(block) => masks(block),
            None if n == 0 => return None,
            None => {
                // The last bytes of the text, padded with spaces (plain content).
                let mut block = [b' '; BLOCK];
                block.get_mut(..n)?.copy_from_slice(rest);
                masks(&block)
            }
        };
        let (esc, next) = escaped(m.backslash, carry);
        let closing = m.quote & !esc;
        // The bytes of this block that belong to the string: up to the closing quote.
        let within = if closing == 0 {
            u64::MAX
        } else {
            (closing & closing.wrapping_neg()) - 1
        };
        // A control character, or an escape other than the short ones (`\u`, invalid).
        let odd = (m.control | (esc & !(m.quote | m.backslash | m.letter))) & within;
        if odd != 0 {
            return None;
        }
        if closing != 0 {
            let end = i + closing.trailing_zeros() as usize + 1;
            // The padding past the text holds no quote, so a found quote is a real byte.
            return (end <= b.len()).then_some(end);
        }
        if n < BLOCK {
            // The text ends inside the string.
            return None;
        }
        i += BLOCK;
        carry = next;
    }
}

/// `"` and `\` in one 64-byte block, one bit per byte: `(quote, backslash)`.
#[cfg(target_arch = "x86_64")]
fn quotes(b: &[u8; BLOCK]) -> (u64, u64) {
    use core::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    };
    // SAFETY: SSE2 is part of the x86_64 baseline; every load reads 16 bytes inside `b`.
    unsafe {
        let (q, s) = (_mm_set1_epi8(b'"' as i8), _mm_set1_epi8(b'\\' as i8));
        let (mut quote, mut backslash) = (0u64, 0u64);
        for k in 0..4 {
            let v = _mm_loadu_si128(b.as_ptr().add(16 * k).cast::<__m128i>());
            quote |= u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(v, q)) as u16) << (16 * k);
            backslash |= u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(v, s)) as u16) << (16 * k);
        }
        (quote, backslash)
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn quotes(b: &[u8; BLOCK]) -> (u64, u64) {
    let m = masks_portable(b);
    (m.quote, m.backslash)
}

/// The end (one past the closing `"`) of the string whose content starts at `from`, in any
/// bytes (validated or not): the first `"` that no backslash escapes, a backslash escaping
/// the byte after it whatever that is; `None` if there is none.
pub(super) fn string_end(b: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    let mut carry = 0u64;
    loop {
        let rest = b.get(i..)?;
        let n = rest.len().min(BLOCK);
        let (quote, backslash) = match rest.first_chunk::<BLOCK>() {
            Some(block) => quotes(block),
            None if n == 0 => return None,
            None => {
                // The last bytes, padded with zeros (never a quote).
                let mut block = [0u8; BLOCK];
                block.get_mut(..n)?.copy_from_slice(rest);
                quotes(&block)
            }
        };
        let (esc, next) = escaped(backslash, carry);
        let closing = quote & !esc;
        if closing != 0 {
            return Some(i + closing.trailing_zeros() as usize + 1);
        }
        if n < BLOCK {
            return None;
        }
        i += BLOCK;
        carry = next;
    }
}

/// The number of JSON whitespace bytes at the start of `b`: a run of spaces 8 at a time
/// (indentation), then byte by byte.
pub(super) fn ws_run(b: &[u8]) -> usize {
    const SPACES: u64 = u64::from_le_bytes([b' '; 8]);
    let mut i = 0;
    loop {
        while let Some(chunk) = b.get(i..i + 8) {
            let mut w = [0u8; 8];
            w.copy_from_slice(chunk);
            if u64::from_le_bytes(w) != SPACES {
                break;
            }
            i += 8;
        }
        match b.get(i) {
            Some(b' ' | b'\t' | b'\n' | b'\r') => i += 1,
            _ => return i,
        }
    }
}
