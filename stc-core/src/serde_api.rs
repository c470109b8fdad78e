//! serde interop: any `Serialize` type to STC and STC to any `Deserialize`
//! type, through serde_json's data model.
//!
//! Numbers pass through serde_json here, so these functions are as exact as
//! the Rust types involved; for byte-exact lexemes use [`encode`](crate::encode)
//! and [`decode`](crate::decode) on JSON text.

use serde::{de::DeserializeOwned, Serialize};

use crate::error::{Error, ErrorKind};
use crate::EncodeOptions;

/// Serializes `value` as STC (compact profile, default limits).
///
/// ```
/// #[derive(serde::Serialize)]
/// struct Route { id: u32, method: &'static str }
/// let routes = vec![Route { id: 1, method: "GET" }, Route { id: 2, method: "POST" }];
/// assert_eq!(
///     stc_core::to_string(&routes)?,
///     r#"([2]{id,method}:1,"GET"/2,"POST")"#
/// );
/// # Ok::<(), stc_core::Error>(())
/// ```
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    to_string_with(value, &EncodeOptions::default())
}

/// [`to_string`] with explicit options.
///
/// ```
/// use stc_core::{EncodeOptions, Profile};
/// let text = stc_core::to_string_with(&[1, 2], &EncodeOptions::default().profile(Profile::Readable))?;
/// assert_eq!(text, "[1, 2]");
/// # Ok::<(), stc_core::Error>(())
/// ```
pub fn to_string_with<T: Serialize + ?Sized>(value: &T, options: &EncodeOptions) -> Result<String, Error> {
    let json = serde_json::to_string(value)
        .map_err(|e| Error::detached(ErrorKind::SerdeData, format!("cannot serialize: {e}")))?;
    crate::encode_with(&json, options)
}

/// Deserializes a `T` from STC (or JSON) text.
///
/// ```
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct Route { id: u32, method: String }
/// let routes: Vec<Route> = stc_core::from_str(r#"([2]{id,method}: 1,"GET" / 2,"POST")"#)?;
/// assert_eq!(routes[1], Route { id: 2, method: "POST".into() });
/// # Ok::<(), stc_core::Error>(())
/// ```
pub fn from_str<T: DeserializeOwned>(stc: &str) -> Result<T, Error> {
    let json = crate::decode(stc)?;
    serde_json::from_str(&json).map_err(|e| Error::detached(ErrorKind::SerdeData, format!("cannot deserialize: {e}")))
}
