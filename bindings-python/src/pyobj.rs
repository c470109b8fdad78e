//! Python objects for `loads`.
//!
//! The shipped build is a module for one CPython version: strings are made
//! by `PyUnicode_New` and filled in place in CPython's narrowest layout,
//! skipping its UTF-8 decoder, and `dumps` reads a compact ASCII string's
//! characters in place. That is the crate's only `unsafe` code; every block
//! says why it is sound. The opt-in `abi3` build (one wheel for CPython 3.10
//! and later) uses pyo3's safe constructors instead.

#[cfg(not(feature = "abi3"))]
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyString;

/// A Python `str` holding `text`.
#[cfg(feature = "abi3")]
#[inline]
pub(crate) fn new_str<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    Ok(PyString::new(py, text).into_any())
}

/// A Python `str` holding `text`: ASCII is copied into a new compact string,
/// and other text is decoded here into the narrowest of CPython's three
/// layouts (Latin-1, UCS-2, UCS-4), as `PyUnicode_FromStringAndSize` would:
/// one pass counts the characters and finds the layout, one decodes.
#[cfg(not(feature = "abi3"))]
#[inline]
pub(crate) fn new_str<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    let bytes = text.as_bytes();
    // The lead bytes tell the layout: below 0x80 all ASCII; lead bytes
    // 0xC2-0xC3 start the characters 0x80-0xFF, 0xC4-0xEF the rest of the
    // BMP, 0xF0-0xF4 the characters above it.
    if is_ascii(bytes) {
        let object = unicode_new(py, bytes.len(), 0x7f)?;
        // SAFETY: `object` is a new compact ASCII string of `bytes.len()`
        // characters that no other code has seen yet: its data area holds
        // exactly that many one-byte units (plus the terminating NUL that
        // PyUnicode_New wrote), so the copy stays in bounds and fills it.
        unsafe {
            let data = ffi::PyUnicode_DATA(object.as_ptr()).cast::<u8>();
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), data, bytes.len());
        }
        return Ok(object);
    }
    wide_str(py, bytes)
}

/// The `str` of non-ASCII UTF-8 `bytes`, counted and then decoded into
/// one allocation of its exact layout.
#[cfg(not(feature = "abi3"))]
#[inline]
fn wide_str<'py>(py: Python<'py>, bytes: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    let (count, max) = count_and_layout(bytes);
    let object = unicode_new(py, count, max)?;
    // SAFETY: as above, a new string nobody else has seen, made for `count`
    // characters (the number `text.chars()` yields: the bytes that do not
    // continue a sequence) up to `max`: PyUnicode_New chose one byte per
    // character for `max` below 256, two below 65536, four otherwise (the
    // same thresholds as here), so `count` units of that width fit its data
    // area exactly. `max` is also the exact layout CPython expects (its
    // strings are always in the narrowest one: a lead byte shows a character
    // of at least 0x80, 0x100 or 0x10000 is present). Rust strs never hold
    // surrogates, so a two-byte string is valid UCS-2.
    unsafe {
        let data = ffi::PyUnicode_DATA(object.as_ptr());
        if max < 0x100 {
            widen(bytes, std::slice::from_raw_parts_mut(data.cast::<u8>(), count));
        } else if max < 0x1_0000 {
            widen(bytes, std::slice::from_raw_parts_mut(data.cast::<u16>(), count));
        } else {
            widen(bytes, std::slice::from_raw_parts_mut(data.cast::<u32>(), count));
        }
    }
    Ok(object)
}

/// The number of characters of UTF-8 `bytes` (the bytes that are not
/// continuation bytes `10xxxxxx`) and the largest character of the layout
/// they need, from the largest byte: lead bytes 0xC2-0xC3 start the
/// characters 0x80-0xFF, 0xC4-0xEF the rest of the BMP, 0xF0-0xF4 the
/// characters beyond. Blocks of 128 bytes, counted in a byte and maximized
/// byte-wise (loops the compiler turns into vector code).
#[cfg(not(feature = "abi3"))]
#[inline]
fn count_and_layout(bytes: &[u8]) -> (usize, u32) {
    let (mut continuations, mut top) = (0usize, 0u8);
    for block in bytes.chunks(128) {
        let n: u8 = block.iter().map(|&b| u8::from((b as i8) < -0x40)).fold(0u8, u8::wrapping_add);
        continuations += usize::from(n);
        top = top.max(block.iter().fold(0u8, |m, &b| m.max(b)));
    }
    let max = match top {
        0..=0xC3 => 0xFF,
        0xC4..=0xEF => 0xFFFF,
        _ => 0x10_FFFF,
    };
    (bytes.len() - continuations, max)
}

/// A code unit of one of CPython's three string layouts.
#[cfg(not(feature = "abi3"))]
trait Unit: Copy {
    fn of(c: u32) -> Self;
}

#[cfg(not(feature = "abi3"))]
impl Unit for u8 {
    #[inline(always)]
    fn of(c: u32) -> Self {
        c as u8
    }
}

#[cfg(not(feature = "abi3"))]
impl Unit for u16 {
    #[inline(always)]
    fn of(c: u32) -> Self {
        c as u16
    }
}

#[cfg(not(feature = "abi3"))]
impl Unit for u32 {
    #[inline(always)]
    fn of(c: u32) -> Self {
        c
    }
}

/// Decodes the UTF-8 `bytes` (valid: they come from a `str`) into `out`,
/// one unit per character (`out` has exactly as many units as there are
/// characters, each fitting the unit): eight ASCII bytes at a time where
/// they come in a run, otherwise by the length the lead byte gives.
#[cfg(not(feature = "abi3"))]
#[inline]
fn widen<T: Unit>(bytes: &[u8], out: &mut [T]) {
    let (mut i, mut o) = (0usize, 0usize);
    while let Some(&b0) = bytes.get(i) {
        let c = if b0 < 0x80 {
            // An ASCII byte: the next eight may be ASCII too.
            if let (Some(word), Some(dest)) = (bytes.get(i..i + 8), out.get_mut(o..o + 8)) {
                let w = u64::from_le_bytes([word[0], word[1], word[2], word[3], word[4], word[5], word[6], word[7]]);
                if w & 0x8080_8080_8080_8080 == 0 {
                    for (d, &b) in dest.iter_mut().zip(word) {
                        *d = T::of(u32::from(b));
                    }
                    i += 8;
                    o += 8;
                    continue;
                }
            }
            i += 1;
            u32::from(b0)
        } else if b0 < 0xE0 {
            let c = (u32::from(b0 & 0x1F) << 6) | cont(bytes, i + 1);
            i += 2;
            c
        } else if b0 < 0xF0 {
            let c = (u32::from(b0 & 0x0F) << 12) | (cont(bytes, i + 1) << 6) | cont(bytes, i + 2);
            i += 3;
            c
        } else {
            let c = (u32::from(b0 & 0x07) << 18)
                | (cont(bytes, i + 1) << 12)
                | (cont(bytes, i + 2) << 6)
                | cont(bytes, i + 3);
            i += 4;
            c
        };
        if let Some(d) = out.get_mut(o) {
            *d = T::of(c);
        }
        o += 1;
    }
}

/// The six payload bits of the continuation byte at `bytes[i]`.
#[cfg(not(feature = "abi3"))]
#[inline(always)]
fn cont(bytes: &[u8], i: usize) -> u32 {
    bytes.get(i).map_or(0, |&b| u32::from(b & 0x3F))
}

/// Whether every byte is below 0x80, eight bytes at a time.
#[cfg(not(feature = "abi3"))]
#[inline]
fn is_ascii(bytes: &[u8]) -> bool {
    let mut words = bytes.chunks_exact(8);
    let mut high = 0u64;
    for word in &mut words {
        high |= u64::from_le_bytes([word[0], word[1], word[2], word[3], word[4], word[5], word[6], word[7]]);
    }
    let tail = words.remainder().iter().fold(0u8, |a, &b| a | b);
    (high & 0x8080_8080_8080_8080) == 0 && tail < 0x80
}

/// The text of a compact ASCII `str`, read in place (no call into CPython),
/// or `None` for any other string (then `PyUnicode_AsUTF8AndSize`).
#[cfg(not(feature = "abi3"))]
#[inline]
pub(crate) fn ascii_str<'s>(s: &'s Bound<'_, pyo3::types::PyString>) -> Option<&'s str> {
    let op = s.as_ptr();
    // SAFETY: `op` is a live `str` (held by `s` for the borrow's life). A
    // compact ASCII string keeps its characters, one byte each and all below
    // 0x80 (valid UTF-8), right after its header, for its whole life (a
    // `str` is immutable once other code can see it); PyUnicode_DATA and
    // PyUnicode_GET_LENGTH read exactly that.
    unsafe {
        if ffi::PyUnicode_IS_COMPACT_ASCII(op) == 0 {
            return None;
        }
        let len = usize::try_from(ffi::PyUnicode_GET_LENGTH(op)).ok()?;
        let bytes = std::slice::from_raw_parts(ffi::PyUnicode_DATA(op).cast::<u8>(), len);
        Some(std::str::from_utf8_unchecked(bytes))
    }
}

/// Always `None` in the abi3 build (the layout is not part of the stable ABI).
#[cfg(feature = "abi3")]
#[inline]
pub(crate) fn ascii_str<'s>(_s: &'s Bound<'_, pyo3::types::PyString>) -> Option<&'s str> {
    None
}

/// A new, uninitialized compact string (`PyUnicode_New`).
#[cfg(not(feature = "abi3"))]
#[inline]
fn unicode_new(py: Python<'_>, len: usize, max: u32) -> PyResult<Bound<'_, PyAny>> {
    let len = isize::try_from(len).map_err(|_| pyo3::exceptions::PyMemoryError::new_err("string too long"))?;
    // SAFETY: PyUnicode_New takes any length and maximum character (it
    // reports what it cannot allocate as an exception) and returns a new
    // reference or NULL with the exception set, as from_owned_ptr_or_err
    // expects. The GIL is held (`py`).
    unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyUnicode_New(len, max)) }
}

/// The `str` that `dumps` returns for its text: CPython's UTF-8 decoder
/// (`PyUnicode_FromStringAndSize`) for text under 1 MiB, [`new_str`] for
/// longer text. The decoder starts with a one-byte buffer as long as the
/// text and moves to a wider one at the first wider character: for a long
/// text that is not ASCII, two large fresh allocations, each paid in page
/// faults, where `new_str` counts first and makes one of the exact layout.
/// On gsoc-2018 (3 MB of UTF-8, UCS-2) `dumps` goes from about 6.0 to 4.3 ms
/// (3.5 % more instructions, 11 % fewer page faults); on random (320 KB,
/// UCS-2) `new_str` was about 5 % slower than the decoder, hence the bound.
#[cfg(not(feature = "abi3"))]
#[inline]
pub(crate) fn output_str<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    if text.len() < WIDEN_OUTPUT_FROM {
        return Ok(PyString::new(py, text).into_any());
    }
    new_str(py, text)
}

/// The `str` that `dumps` returns (the stable ABI's constructor).
#[cfg(feature = "abi3")]
pub(crate) fn output_str<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    Ok(PyString::new(py, text).into_any())
}

/// The length of UTF-8 text (1 MiB) from which [`output_str`] makes the
/// `str` itself: between the two measured sizes above.
#[cfg(not(feature = "abi3"))]
const WIDEN_OUTPUT_FROM: usize = 1 << 20;

/// A Python `int` from an `i64`.
#[inline]
pub(crate) fn new_int(py: Python<'_>, value: i64) -> PyResult<Bound<'_, PyAny>> {
    Ok(value.into_pyobject(py)?.into_any())
}

/// A Python `float`.
#[inline]
pub(crate) fn new_float(py: Python<'_>, value: f64) -> Bound<'_, PyAny> {
    pyo3::types::PyFloat::new(py, value).into_any()
}

/// Strings that `dumps`' document borrows, kept alive for as long as it
/// does: the document holds slices of their UTF-8 text instead of copies
/// (`DocumentBuilder::push_str_borrowed`), and each slice is valid while its
/// `str` lives, which a strong reference here guarantees.
#[cfg(not(feature = "abi3"))]
pub(crate) struct KeepAlive {
    strings: std::cell::RefCell<Vec<Py<pyo3::types::PyString>>>,
}

#[cfg(not(feature = "abi3"))]
impl KeepAlive {
    pub(crate) fn new() -> Self {
        KeepAlive { strings: std::cell::RefCell::new(Vec::with_capacity(32)) }
    }

    /// The text of a compact ASCII `str`, borrowed for as long as `self`
    /// lives (a reference to the `str` is kept), or `None` for any other
    /// string.
    #[inline]
    pub(crate) fn ascii<'k>(&'k self, s: &Bound<'_, pyo3::types::PyString>) -> Option<&'k str> {
        let text = ascii_str(s)?;
        let (ptr, len) = (text.as_ptr(), text.len());
        self.strings.borrow_mut().push(s.clone().unbind());
        // SAFETY: `ptr..ptr + len` is the character data of the compact
        // ASCII `str` `s` (checked by `ascii_str`): it lies inside the
        // object's own allocation, right after its header, and never
        // changes (a `str` is immutable once other code can see it). The
        // reference just pushed keeps the object alive until `self` is
        // dropped, and the borrow of `self` for `'k` ends before that; the
        // vector holds pointers to objects, so its growth does not move the
        // text. Valid UTF-8: every byte is below 0x80.
        Some(unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(ptr, len)) })
    }
}

/// The `abi3` build borrows nothing (the layout is not part of the stable ABI).
#[cfg(feature = "abi3")]
pub(crate) struct KeepAlive;

#[cfg(feature = "abi3")]
impl KeepAlive {
    pub(crate) fn new() -> Self {
        KeepAlive
    }

    /// Always `None`: strings are copied.
    #[inline]
    pub(crate) fn ascii<'k>(&'k self, _s: &Bound<'_, pyo3::types::PyString>) -> Option<&'k str> {
        None
    }
}
