//! A loopback stand-in for `specs/conformance.yaml`: each of the MCP conformance suite's tool
//! scenarios answered as an HTTP API would (a text reply, a PNG and a WAV body, a PDF, an error
//! status, events a moment apart, a JSON reply), so the suite judges how a generated server turns
//! HTTP replies into MCP content.

use std::convert::Infallible;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::json;

/// A 1×1 red PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
    0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x08, 0xd7, 0x63, 0xf8, 0xcf, 0xc0, 0x00,
    0x00, 0x03, 0x01, 0x01, 0x00, 0x18, 0xdd, 0x8d, 0xb0, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

/// A WAV file of 8 silent 8-bit samples at 8 kHz.
fn wav() -> Vec<u8> {
    let samples = [0x80_u8; 8];
    let mut wav = Vec::new();
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + samples.len() as u32).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    // PCM, one channel, 8,000 samples per second, 8,000 bytes per second, 1-byte frames, 8 bits.
    for field in [
        16_u32.to_le_bytes().as_slice(),
        &1_u16.to_le_bytes(),
        &1_u16.to_le_bytes(),
    ] {
        wav.extend_from_slice(field);
    }
    for field in [8000_u32.to_le_bytes(), 8000_u32.to_le_bytes()] {
        wav.extend_from_slice(&field);
    }
    wav.extend_from_slice(&1_u16.to_le_bytes());
    wav.extend_from_slice(&8_u16.to_le_bytes());
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&(samples.len() as u32).to_le_bytes());
    wav.extend_from_slice(&samples);
    wav
}

fn body(media_type: &'static str, bytes: Vec<u8>) -> Response {
    ([(header::CONTENT_TYPE, media_type)], bytes).into_response()
}

/// Three events 50 ms apart.
async fn progress() -> Response {
    let events = futures::stream::unfold(0_u32, |step| async move {
        if step == 3 {
            return None;
        }
        if step > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let event = format!("data: {}\n\n", json!({"step": step + 1}));
        Some((Ok::<_, Infallible>(Bytes::from(event)), step + 1))
    });
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .body(Body::from_stream(events))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

/// Starts the stand-in; returns its base URL.
pub async fn serve() -> String {
    let app = Router::new()
        .route(
            "/simple-text",
            get(|| async {
                body(
                    "text/plain",
                    b"This is a simple text response for testing.".to_vec(),
                )
            }),
        )
        .route("/image", get(|| async { body("image/png", PNG.to_vec()) }))
        .route("/audio", get(|| async { body("audio/wav", wav()) }))
        .route(
            "/document",
            get(|| async { body("application/pdf", b"%PDF-1.4\n%%EOF\n".to_vec()) }),
        )
        .route(
            "/error",
            get(|| async {
                let why =
                    json!({"message": "This tool intentionally returns an error for testing"});
                (StatusCode::INTERNAL_SERVER_ERROR, axum::Json(why)).into_response()
            }),
        )
        .route("/progress", get(progress))
        .route(
            "/json-schema",
            get(|| async { axum::Json(json!({})).into_response() }),
        );
    crate::listen(app).await
}
