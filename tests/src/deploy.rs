//! A deployment in miniature for the tests: a real `redis-server` on a free loopback port, and
//! a round-robin HTTP proxy in front of several replicas that records which replica answered
//! which JSON-RPC method.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// A `redis-server` process, killed when dropped.
pub struct Redis {
    child: Option<std::process::Child>,
    program: std::path::PathBuf,
    port: u16,
    /// Where it keeps its append-only file, when it keeps one ([`redis_persistent`]).
    dir: Option<std::path::PathBuf>,
    /// Its `redis://` URL.
    pub url: String,
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.stop();
        if let Some(dir) = &self.dir {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

impl Redis {
    /// Kills the server (as a crash would); [`Redis::start`] brings it back on the same port.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server on its port (again), with what it kept on disk, if anything; returns
    /// once it answers `PING`.
    pub fn start(&mut self) {
        let mut command = std::process::Command::new(&self.program);
        command.args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"]);
        command.args(["--save", "", "--daemonize", "no"]);
        match &self.dir {
            // Every write on disk before it is answered: a crash loses nothing.
            Some(dir) => command
                .args(["--appendonly", "yes", "--appendfsync", "always", "--dir"])
                .arg(dir),
            None => command.args(["--appendonly", "no"]),
        };
        let child = command
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("redis-server starts");
        self.child = Some(child);
        // Ready when it answers PING.
        for _ in 0..200 {
            use std::io::{Read, Write};
            if let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", self.port)) {
                let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
                let mut answer = [0u8; 7];
                if stream.write_all(b"PING\r\n").is_ok()
                    && stream.read_exact(&mut answer).is_ok()
                    && &answer == b"+PONG\r\n"
                {
                    return;
                }
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!(
            "redis-server on port {} did not answer PING within 5 s",
            self.port
        );
    }
}

/// Starts `redis-server` (Debian's package, which `scripts/test.sh` installs) on a free
/// loopback port, keeping nothing on disk; `None` when it is not installed (see
/// [`crate::tools::system_tool`]).
pub fn redis() -> Option<Redis> {
    started(None)
}

/// [`redis`] keeping its data in an append-only file, written before each answer, so that it
/// comes back whole after [`Redis::stop`] and [`Redis::start`].
pub fn redis_persistent() -> Option<Redis> {
    static SERIAL: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let serial = SERIAL.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("harness-redis-{}-{serial}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory for redis-server");
    started(Some(dir))
}

fn started(dir: Option<std::path::PathBuf>) -> Option<Redis> {
    let program = crate::tools::system_tool(
        "the replicated MCP task tests",
        "/usr/bin/redis-server",
        "install Debian's redis-server (`sudo apt-get install redis-server`); scripts/test.sh does when it can",
    )?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let mut redis = Redis {
        child: None,
        program,
        port,
        dir,
        url: format!("redis://127.0.0.1:{port}"),
    };
    redis.start();
    Some(redis)
}

/// A round-robin HTTP proxy: each request goes to the next replica in turn, whatever
/// connection it came on (as a load balancer balancing requests does).
#[derive(Clone, Default)]
pub struct Proxy {
    replicas: Arc<Mutex<Vec<String>>>,
    turn: Arc<Mutex<usize>>,
    /// Each request's JSON-RPC method (or `-`) and the replica that got it, in order.
    seen: Arc<Mutex<Vec<(String, usize)>>>,
}

impl Proxy {
    /// A proxy over the replicas at `origins` (`http://127.0.0.1:PORT`); returns it and the URL
    /// of its `/mcp`.
    pub async fn start(origins: Vec<String>) -> (Proxy, String) {
        let proxy = Proxy {
            replicas: Arc::new(Mutex::new(origins)),
            ..Proxy::default()
        };
        let app = axum::Router::new()
            .fallback(forward)
            .with_state(proxy.clone());
        let base = crate::listen(app).await;
        (proxy, format!("{base}/mcp"))
    }

    /// Puts `origin` in the place of replica `index` (a restarted replica).
    pub fn replace(&self, index: usize, origin: String) {
        self.replicas.lock().expect("no test thread panicked")[index] = origin;
    }

    /// Each request's JSON-RPC method and the replica that got it, so far.
    pub fn seen(&self) -> Vec<(String, usize)> {
        self.seen.lock().expect("no test thread panicked").clone()
    }
}

async fn forward(State(proxy): State<Proxy>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let Ok(body) = axum::body::to_bytes(body, 16 << 20).await else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    let method = serde_json::from_slice::<serde_json::Value>(&body)
        .ok()
        .and_then(|v| v["method"].as_str().map(str::to_owned))
        .unwrap_or_else(|| "-".into());
    let (index, origin) = {
        let replicas = proxy.replicas.lock().expect("no test thread panicked");
        let mut turn = proxy.turn.lock().expect("no test thread panicked");
        let index = *turn % replicas.len();
        *turn += 1;
        (index, replicas[index].clone())
    };
    proxy
        .seen
        .lock()
        .expect("no test thread panicked")
        .push((method, index));
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let client = reqwest::Client::new();
    let mut outgoing = client.request(parts.method.clone(), format!("{origin}{path}"));
    for (name, value) in &parts.headers {
        if name != axum::http::header::HOST && name != axum::http::header::CONTENT_LENGTH {
            outgoing = outgoing.header(name, value);
        }
    }
    let reply = match outgoing.body(body).send().await {
        Ok(reply) => reply,
        Err(error) => return (StatusCode::BAD_GATEWAY, error.to_string()).into_response(),
    };
    let mut response = Response::builder().status(reply.status());
    for (name, value) in reply.headers() {
        if name != axum::http::header::CONTENT_LENGTH
            && name != axum::http::header::TRANSFER_ENCODING
        {
            response = response.header(name, value);
        }
    }
    response
        .body(Body::from_stream(reply.bytes_stream()))
        .unwrap_or_else(|_| StatusCode::BAD_GATEWAY.into_response())
}
