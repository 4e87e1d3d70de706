//! Shared by the end-to-end tests: an axum server on loopback implementing the pet-store
//! sample (`specs/petstore.yaml`), with a few paths that misbehave on purpose.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, put};
use serde_json::{Value, json};

/// The bearer token the server accepts.
pub const TOKEN: &str = "tok_petstore_e2e_31f9";

/// Per-server state.
#[derive(Default)]
struct Server {
    inventory_hits: AtomicUsize,
}

/// Starts the server; returns its base URL.
pub async fn serve() -> String {
    let state = Arc::new(Server::default());
    let app = Router::new()
        .route("/pets", get(list_pets).post(create_pet))
        .route(
            "/pets/{id}",
            get(get_pet).delete(|| async { StatusCode::NO_CONTENT }),
        )
        .route(
            "/pets/{id}/photo",
            put(|body: axum::body::Bytes| async move { format!("{}", body.len()) }),
        )
        .route("/pets/{id}/name", get(pet_name))
        .route("/store/inventory", get(inventory))
        .with_state(state);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("the test server starts");
    let addr = listener.local_addr().expect("the test server starts");
    tokio::spawn(async move {
        axum::serve(listener, app)
            .await
            .expect("the test server starts")
    });
    format!("http://{addr}")
}

fn authorized(headers: &HeaderMap) -> bool {
    headers.get("authorization").and_then(|v| v.to_str().ok()) == Some(&format!("Bearer {TOKEN}"))
}

async fn list_pets(headers: HeaderMap, Query(query): Query<Vec<(String, String)>>) -> Response {
    if !authorized(&headers) {
        return (
            StatusCode::UNAUTHORIZED,
            axum::Json(json!({"title": "who are you"})),
        )
            .into_response();
    }
    let limit: usize = query
        .iter()
        .find(|(k, _)| k == "limit")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(20);
    let species = query
        .iter()
        .find(|(k, _)| k == "species")
        .map(|(_, v)| v.clone());
    let pets = vec![
        json!({"id": 1, "name": "Rex", "species": "dog", "tag": null}),
        json!({"id": 2, "name": "Tom", "species": "cat"}),
        json!({"id": 3, "name": "Tweety", "species": "bird", "born": "2020-01-01"}),
    ];
    let pets: Vec<Value> = pets
        .into_iter()
        .filter(|p| {
            species
                .as_ref()
                .is_none_or(|s| s.split(',').any(|s| p["species"] == s))
        })
        .take(limit)
        .collect();
    axum::Json(pets).into_response()
}

async fn create_pet(headers: HeaderMap, axum::Json(body): axum::Json<Value>) -> Response {
    if !authorized(&headers) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    if body["name"] == "Rex" {
        return (
            StatusCode::CONFLICT,
            axum::Json(json!({"title": "Rex exists"})),
        )
            .into_response();
    }
    if body["name"] == "Teapot" {
        return (StatusCode::IM_A_TEAPOT, format!("leaked {TOKEN}")).into_response();
    }
    let mut pet = body;
    pet["id"] = json!(42);
    (StatusCode::CREATED, axum::Json(pet)).into_response()
}

async fn get_pet(Path(id): Path<String>) -> Response {
    match id.as_str() {
        "1" => axum::Json(json!({"id": 1, "name": "Rex", "species": "dog"})).into_response(),
        "7" => axum::Json(json!({"id": "not a number"})).into_response(),
        "9" => {
            tokio::time::sleep(Duration::from_secs(3)).await;
            StatusCode::OK.into_response()
        }
        _ => (
            StatusCode::NOT_FOUND,
            axum::Json(json!({"title": "no such pet", "detail": id})),
        )
            .into_response(),
    }
}

async fn pet_name(Path(id): Path<String>) -> Response {
    match id.as_str() {
        "1" => axum::Json(json!("Rex")).into_response(),
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

async fn inventory(State(state): State<Arc<Server>>, headers: HeaderMap) -> Response {
    if state.inventory_hits.fetch_add(1, Ordering::SeqCst) == 0 {
        return (StatusCode::TOO_MANY_REQUESTS, [("retry-after", "0")]).into_response();
    }
    let key = headers
        .get("x-api-key")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("none");
    axum::Json(json!({"available": 3, "key_was_sent": i64::from(key == "k-123")})).into_response()
}

/// The workspace root.
pub fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .expect("the workspace root exists")
}

/// Builds binary `bin` of `generated/petstore` with `feature`, once per test process, in its
/// own target directory (the one tests run from is locked by cargo while they run), with
/// warnings denied; returns its path.
pub fn petstore_binary(bin: &str, feature: &str) -> std::path::PathBuf {
    static BUILT: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let target = root().join("target/harness-typecheck/target");
    let path = target.join("debug").join(bin);
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if !built.iter().any(|b| b == bin) {
        let out = std::process::Command::new(env!("CARGO"))
            .args(["build", "--quiet", "--offline", "-p", "petstore"])
            .args(["--features", feature, "--bin", bin])
            .current_dir(root())
            .env("CARGO_TARGET_DIR", &target)
            .env("RUSTFLAGS", "-D warnings")
            .output()
            .expect("cargo runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        built.push(bin.to_owned());
    }
    path
}

/// Starts `petstore-mcp --http` on a free loopback port against the API at `base`; returns
/// the process and the MCP endpoint's URL.
pub fn start_mcp_http(base: &str) -> (std::process::Child, String) {
    use std::io::BufRead;
    let mut child = std::process::Command::new(petstore_binary("petstore-mcp", "mcp"))
        .args(["--http", "127.0.0.1:0"])
        .env("PETSTORE_BASE_URL", base)
        .env("PETSTORE_TOKEN", TOKEN)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the MCP server starts");
    let mut line = String::new();
    let stderr = child.stderr.take().expect("stderr is piped");
    std::io::BufReader::new(stderr)
        .read_line(&mut line)
        .expect("the MCP server says where it listens");
    let url = line
        .trim()
        .rsplit(' ')
        .next()
        .unwrap_or_default()
        .to_owned();
    assert!(url.starts_with("http://127.0.0.1:"), "{line}");
    (child, url)
}
