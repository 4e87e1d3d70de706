//! Binary data a call sends (`format: binary`: a file part of a multipart body, a whole
//! `application/octet-stream` body): [`Upload`], made from bytes in memory, a file, standard
//! input (a command line's `@-`) or a stream; the HTTP client reads what [`Upload::source`]
//! says.
//!
//! In JSON (tool inputs and outputs, a binary field of a JSON reply) an upload is base64 text,
//! like [`Bytes`](crate::formats::Bytes). When the HTTP client encodes a call, an upload
//! travels as itself: [`collect`] serializes the call's input while gathering every upload it
//! holds, each written into the JSON value as a placeholder the body encoder recognises (see
//! [`Gathered::find`]), so a file is read from disk, or a stream pulled, only while its request
//! is sent, and a file is read again for every retried attempt.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserializer, Serializer};

/// Binary data to send: bytes, a file (read only when sent, again on every attempt) or a
/// stream (sent once: a call whose body holds a stream is never retried), with the file name
/// and media type its part carries in a multipart body.
///
/// ```
/// use harness_gen_types::formats::Upload;
///
/// let photo = Upload::bytes(b"\x89PNG...".to_vec()).file_name("cat.png");
/// assert_eq!(photo.name(), Some("cat.png"));
/// // Without a media type of its own, a part takes the one its document declares, else the
/// // one its file name suggests.
/// assert_eq!(photo.media_type(), None);
/// let report = Upload::path("reports/q3.pdf");
/// assert_eq!(report.name(), Some("q3.pdf"));
/// // In JSON it is base64 text.
/// let read: Upload = serde_json::from_str(r#""aGk=""#).unwrap();
/// assert_eq!(read.in_memory(), Some(&b"hi"[..]));
/// ```
#[derive(Clone)]
pub struct Upload {
    source: Source,
    name: Option<String>,
    media_type: Option<String>,
}

/// The bytes of an upload made from a stream ([`Upload::stream`]).
pub type ByteStream =
    std::pin::Pin<Box<dyn futures_core::Stream<Item = std::io::Result<bytes::Bytes>> + Send>>;

/// Where an upload's bytes come from (what the HTTP client reads when it sends one).
#[derive(Clone)]
pub enum Source {
    /// Bytes held in memory.
    Memory(bytes::Bytes),
    /// A file, opened when the request is sent.
    File(PathBuf),
    /// The process's standard input (a command line's `@-`).
    Stdin,
    /// A stream, read once, and its length when known.
    Stream(
        std::sync::Arc<std::sync::Mutex<Option<ByteStream>>>,
        Option<u64>,
    ),
}

impl Upload {
    /// Bytes held in memory.
    pub fn bytes(bytes: impl Into<bytes::Bytes>) -> Self {
        Self::of(Source::Memory(bytes.into()), None)
    }

    /// The file at `path`, opened when the request is sent (a file that cannot be read fails
    /// the call before anything is sent); its file name is the part's, unless set.
    pub fn path(path: impl Into<PathBuf>) -> Self {
        let path = path.into();
        let name = path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned());
        Self::of(Source::File(path), name)
    }

    /// The bytes `stream` yields, `length` of them when known (a multipart body whose parts
    /// all have a known length is sent with a `Content-Length`). A stream is read once: a
    /// call that sends one is not retried.
    pub fn stream<S>(stream: S, length: Option<u64>) -> Self
    where
        S: futures_core::Stream<Item = std::io::Result<bytes::Bytes>> + Send + 'static,
    {
        let stream: ByteStream = Box::pin(stream);
        Self::of(
            Source::Stream(
                std::sync::Arc::new(std::sync::Mutex::new(Some(stream))),
                length,
            ),
            None,
        )
    }

    fn of(source: Source, name: Option<String>) -> Self {
        Self {
            source,
            name,
            media_type: None,
        }
    }

    /// The same upload sent under `name` (a multipart part's `filename`).
    pub fn file_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The same upload sent as `media_type` (a multipart part's `Content-Type`).
    pub fn content_type(mut self, media_type: impl Into<String>) -> Self {
        self.media_type = Some(media_type.into());
        self
    }

    /// The file name it is sent under, if any.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The media type it was given, if any.
    pub fn media_type(&self) -> Option<&str> {
        self.media_type.as_deref()
    }

    /// The bytes, when they are held in memory (always for a value read from JSON).
    pub fn in_memory(&self) -> Option<&[u8]> {
        match &self.source {
            Source::Memory(bytes) => Some(bytes),
            _ => None,
        }
    }

    /// The bytes held in memory, shared rather than copied.
    pub fn shared_bytes(&self) -> Option<bytes::Bytes> {
        match &self.source {
            Source::Memory(bytes) => Some(bytes.clone()),
            _ => None,
        }
    }

    /// The file it reads, if it is one.
    pub fn file(&self) -> Option<&Path> {
        match &self.source {
            Source::File(path) => Some(path),
            _ => None,
        }
    }

    /// Where its bytes come from.
    pub fn source(&self) -> &Source {
        &self.source
    }
}

impl From<Vec<u8>> for Upload {
    fn from(bytes: Vec<u8>) -> Self {
        Self::bytes(bytes)
    }
}

impl From<&'static [u8]> for Upload {
    fn from(bytes: &'static [u8]) -> Self {
        Self::bytes(bytes)
    }
}

impl From<crate::formats::Bytes> for Upload {
    fn from(bytes: crate::formats::Bytes) -> Self {
        Self::bytes(bytes.into_vec())
    }
}

impl fmt::Debug for Upload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = f.debug_struct("Upload");
        match &self.source {
            Source::Memory(bytes) => out.field("bytes", &bytes.len()),
            Source::File(path) => out.field("path", path),
            Source::Stdin => out.field("stdin", &true),
            Source::Stream(_, length) => out.field("stream", length),
        };
        out.field("name", &self.name)
            .field("media_type", &self.media_type)
            .finish()
    }
}

/// Uploads compare equal when they send the same thing: the same bytes, or the same file, or
/// the very same stream.
impl PartialEq for Upload {
    fn eq(&self, other: &Self) -> bool {
        let same = match (&self.source, &other.source) {
            (Source::Memory(a), Source::Memory(b)) => a == b,
            (Source::File(a), Source::File(b)) => a == b,
            (Source::Stdin, Source::Stdin) => true,
            (Source::Stream(a, _), Source::Stream(b, _)) => std::sync::Arc::ptr_eq(a, b),
            _ => false,
        };
        same && self.name == other.name && self.media_type == other.media_type
    }
}

/// The text an upload is written as while [`collect`] gathers it: a control character no
/// base64 text holds, then its position among the gathered uploads.
const PLACEHOLDER: &str = "\u{0}harness-upload:";

thread_local! {
    static GATHERING: RefCell<Option<Vec<Upload>>> = const { RefCell::new(None) };
}

/// The uploads a call's input held, in the order [`collect`] met them.
#[derive(Clone, Debug, Default)]
pub struct Gathered(Vec<Upload>);

impl Gathered {
    /// The upload a JSON value stands for, if it is one's placeholder.
    pub fn find(&self, value: &serde_json::Value) -> Option<&Upload> {
        let index = value.as_str()?.strip_prefix(PLACEHOLDER)?.parse().ok()?;
        self.0.get::<usize>(index)
    }

    /// `value` as JSON carries it (a parameter, a JSON or form body, a JSON part): each upload
    /// in it as base64 text. An upload from a file or a stream has no such form: the error says
    /// where it is (`at` is `value`'s JSON pointer in the input).
    pub fn as_json<'a>(
        &self,
        value: &'a serde_json::Value,
        at: &str,
    ) -> Result<Cow<'a, serde_json::Value>, String> {
        use serde_json::Value;
        if self.0.is_empty() {
            return Ok(Cow::Borrowed(value));
        }
        if let Some(upload) = self.find(value) {
            let Some(bytes) = upload.in_memory() else {
                return Err(format!(
                    "the upload at {at} is a file or a stream, which goes only into a multipart part or a whole binary body; give its bytes (`Upload::bytes`) to send it as base64 here"
                ));
            };
            use base64::Engine;
            let text = base64::engine::general_purpose::STANDARD.encode(bytes);
            return Ok(Cow::Owned(Value::String(text)));
        }
        match value {
            Value::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    out.push(self.as_json(item, &format!("{at}/{i}"))?.into_owned());
                }
                Ok(Cow::Owned(Value::Array(out)))
            }
            Value::Object(fields) => {
                let mut out = serde_json::Map::with_capacity(fields.len());
                for (key, item) in fields {
                    let item =
                        self.as_json(item, &format!("{at}/{}", crate::pointer::escape(key)))?;
                    out.insert(key.clone(), item.into_owned());
                }
                Ok(Cow::Owned(Value::Object(out)))
            }
            other => Ok(Cow::Borrowed(other)),
        }
    }
}

/// Runs `serialize` (which turns a call's input into JSON), writing every [`Upload`] it meets as
/// a placeholder and returning those uploads beside its result.
pub fn collect<T>(serialize: impl FnOnce() -> T) -> (T, Gathered) {
    let mut gathered = None;
    let result = scoped(&GATHERING, Some(Vec::new()), |state| {
        let result = serialize();
        gathered = state.with(|cell| cell.borrow_mut().take());
        result
    });
    (result, Gathered(gathered.unwrap_or_default()))
}

/// Runs `f` with the thread-local `key` set to `value`, putting the earlier value back when
/// `f` returns or unwinds, so a panic inside never leaves the thread in the scope's state.
pub fn scoped<S: 'static, T>(
    key: &'static std::thread::LocalKey<RefCell<S>>,
    value: S,
    f: impl FnOnce(&'static std::thread::LocalKey<RefCell<S>>) -> T,
) -> T {
    struct Restore<S: 'static> {
        key: &'static std::thread::LocalKey<RefCell<S>>,
        outer: Option<S>,
    }
    impl<S: 'static> Drop for Restore<S> {
        fn drop(&mut self) {
            if let Some(outer) = self.outer.take() {
                self.key.with(|cell| *cell.borrow_mut() = outer);
            }
        }
    }
    let outer = key.with(|cell| cell.replace(value));
    let _restore = Restore {
        key,
        outer: Some(outer),
    };
    f(key)
}

impl serde::Serialize for Upload {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let placeholder = GATHERING.with(|cell| {
            let mut cell = cell.borrow_mut();
            let gathered = cell.as_mut()?;
            gathered.push(self.clone());
            Some(format!("{PLACEHOLDER}{}", gathered.len() - 1))
        });
        match (placeholder, &self.source) {
            (Some(placeholder), _) => serializer.serialize_str(&placeholder),
            (None, Source::Memory(bytes)) => {
                use base64::Engine;
                serializer.serialize_str(&base64::engine::general_purpose::STANDARD.encode(bytes))
            }
            (None, _) => Err(serde::ser::Error::custom(
                "an upload from a file or a stream is sent by the HTTP client and has no JSON form",
            )),
        }
    }
}

/// The text the CLI gives for a file named on its command line (`@path`, or `-` for standard
/// input) in a binary input value: read as that file only inside [`with_local_files`].
const FILE_REFERENCE: &str = "\u{0}harness-file:";

thread_local! {
    static LOCAL_FILES: RefCell<bool> = const { RefCell::new(false) };
}

/// The input text that stands for the file at `path` (`-`: standard input) in a binary value
/// (the CLI's `@path`), so the file is streamed when the request is sent, never read whole.
pub fn file_reference(path: &str) -> String {
    format!("{FILE_REFERENCE}{path}")
}

/// The JSON pointer (below `at`) of a [`file_reference`] left in `value` as text: a CLI `@path`
/// given where the document declares no binary value, so no file was read for it. Such text is
/// never sent (it would send the local path instead of the file).
pub fn unread_file(value: &serde_json::Value, at: &str) -> Option<String> {
    use serde_json::Value;
    match value {
        Value::String(text) if text.starts_with(FILE_REFERENCE) => Some(at.to_string()),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, item)| unread_file(item, &format!("{at}/{i}"))),
        Value::Object(fields) => fields.iter().find_map(|(key, item)| {
            unread_file(item, &format!("{at}/{}", crate::pointer::escape(key)))
        }),
        _ => None,
    }
}

/// Runs `f` with [`file_reference`]s read as the files they name. Only the CLI does, for the
/// files its user named; anywhere else (an MCP client's input) such text is not base64 and
/// fails as invalid input.
pub fn with_local_files<T>(f: impl FnOnce() -> T) -> T {
    scoped(&LOCAL_FILES, true, |_| f())
}

impl<'de> serde::Deserialize<'de> for Upload {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(UploadText)
    }
}

struct UploadText;

impl serde::de::Visitor<'_> for UploadText {
    type Value = Upload;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("base64 text")
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Upload, E> {
        if let Some(path) = text.strip_prefix(FILE_REFERENCE)
            && LOCAL_FILES.with(|cell| *cell.borrow())
        {
            return Ok(local_file(path));
        }
        crate::formats::decode_base64(text)
            .map(Upload::bytes)
            .ok_or_else(|| E::custom("invalid base64 text"))
    }
}

/// The upload a command line's `@path` (or `-`) names.
fn local_file(path: &str) -> Upload {
    if path == "-" {
        return Upload::of(Source::Stdin, Some("stdin".to_string()));
    }
    Upload::path(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(serde::Serialize)]
    struct Form {
        purpose: &'static str,
        files: Vec<Upload>,
    }

    #[test]
    fn collecting_replaces_each_upload_by_a_placeholder_found_again() {
        let form = Form {
            purpose: "fine-tune",
            files: vec![Upload::bytes(&b"one"[..]), Upload::path("/tmp/two.txt")],
        };
        let (value, gathered) = collect(|| serde_json::to_value(&form).unwrap());
        assert_eq!(value["purpose"], "fine-tune");
        let first = gathered.find(&value["files"][0]).unwrap();
        assert_eq!(first.in_memory(), Some(&b"one"[..]));
        let second = gathered.find(&value["files"][1]).unwrap();
        assert_eq!(second.name(), Some("two.txt"));
        assert!(gathered.find(&json!("aGk=")).is_none());
        assert!(gathered.find(&json!(format!("{PLACEHOLDER}9"))).is_none());
    }

    #[test]
    fn outside_a_call_bytes_are_base64_and_a_file_has_no_json_form() {
        assert_eq!(
            serde_json::to_value(Upload::bytes(&b"hi"[..])).unwrap(),
            json!("aGk=")
        );
        let error = serde_json::to_value(Upload::path("/etc/hostname")).unwrap_err();
        assert!(error.to_string().contains("no JSON form"), "{error}");
        // Nothing is left gathering once a collection is over.
        let _ = collect(|| ());
        assert_eq!(
            serde_json::to_value(Upload::bytes(&b"hi"[..])).unwrap(),
            json!("aGk=")
        );
    }
}
