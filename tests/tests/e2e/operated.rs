//! The generated MCP server as an operator runs it (issue 41): two replicas sharing their tasks
//! through a real Redis behind a round-robin proxy, driven by the official Python client in the
//! stateless (2026-07-28) era; health, readiness and Prometheus metrics; logs; and a graceful
//! stop on SIGTERM.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::time::Duration;

use harness_e2e::deploy::{Proxy, redis, redis_persistent};
use harness_e2e::{McpHttp, serve, start_mcp_http_with};
use serde_json::{Value, json};

use crate::petstore_mcp::{drive, python, steps};

/// A replica of the pet store's MCP server on a free port, its tasks in `store`.
fn replica(base: &str, store: &str) -> (McpHttp, String) {
    start_mcp_http_with(base, &["--task-store", store], &[])
}

fn origin(url: &str) -> String {
    url.trim_end_matches("/mcp").to_owned()
}

fn create(name: &str) -> Value {
    json!({"task": "pets.create", "arguments": {"body": {"name": name, "species": "cat"}}})
}

#[tokio::test(flavor = "multi_thread")]
async fn replicas_on_one_redis_share_tasks_across_a_round_robin_proxy_and_a_restart() {
    let Some(python) = python() else { return };
    let Some(redis) = redis() else { return };
    let base = serve().await;
    let (first, first_url) = replica(&base, &redis.url);
    let (second, second_url) = replica(&base, &redis.url);
    let mut replicas = [Some(first), Some(second)];
    let (proxy, url) = Proxy::start(vec![origin(&first_url), origin(&second_url)]).await;

    // A task started through one replica is polled to its end through both.
    let seen = drive(
        &python,
        "modern",
        &json!([create("Kit")]),
        &["--url", &url],
        &[],
    );
    let step = &steps(&seen)[0];
    let id = step["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task: {step}"));
    let last = &step["final"]["result"];
    assert_eq!(last["status"], "completed", "{step}");
    assert_eq!(last["result"]["structuredContent"]["id"], 42, "{step}");
    let routed = proxy.seen();
    let ran_on = routed
        .iter()
        .find(|(method, _)| method == "tools/call")
        .map(|(_, replica)| *replica)
        .unwrap();
    let polled: Vec<usize> = routed
        .iter()
        .filter(|(method, _)| method == "tasks/get")
        .map(|(_, replica)| *replica)
        .collect();
    assert!(
        polled.iter().any(|r| *r != ran_on),
        "some tasks/get reached the replica that did not run the task: {routed:?}"
    );

    // The replica that ran it stops (gracefully) and starts again: the result is still there,
    // through either replica.
    let stopped = replicas[ran_on]
        .take()
        .unwrap()
        .terminate(Duration::from_secs(10));
    assert!(
        stopped.status.success(),
        "{}",
        String::from_utf8_lossy(&stopped.stderr)
    );
    let (restarted, restarted_url) = replica(&base, &redis.url);
    proxy.replace(ran_on, origin(&restarted_url));
    replicas[ran_on] = Some(restarted);
    let script = json!([{"getTask": id}, {"getTask": id}]);
    let seen = drive(&python, "modern", &script, &["--url", &url], &[]);
    for step in steps(&seen) {
        assert_eq!(step["result"]["status"], "completed", "{step}");
        assert_eq!(step["result"]["taskId"], id, "{step}");
        assert_eq!(
            step["result"]["result"]["structuredContent"]["id"], 42,
            "{step}"
        );
    }

    // A working task is cancelled through whichever replica the proxy picks; the replica that
    // runs it stops it, and its later result does not overwrite the cancel.
    let mut slow = create("Slow");
    slow["cancel"] = json!(true);
    let seen = drive(&python, "modern", &json!([slow]), &["--url", &url], &[]);
    let step = &steps(&seen)[0];
    assert_eq!(step["final"]["result"]["status"], "cancelled", "{step}");
    let id = step["taskId"].as_str().unwrap();
    let routed = &proxy.seen()[routed.len()..];
    let replica_of = |wanted: &str| {
        routed
            .iter()
            .find(|(method, _)| method == wanted)
            .map(|(_, replica)| *replica)
            .unwrap()
    };
    let runner = replica_of("tools/call");
    assert_ne!(runner, replica_of("tasks/cancel"), "{routed:?}");
    let runner = replicas[runner].as_ref().unwrap();
    let mut stopped = false;
    for _ in 0..100 {
        stopped = runner.logs().contains("task stopped: it ended elsewhere");
        if stopped {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(stopped, "the runner stops the task: {}", runner.logs());
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let seen = drive(
        &python,
        "modern",
        &json!([{"getTask": id}, {"getTask": id}]),
        &["--url", &url],
        &[],
    );
    for step in steps(&seen) {
        assert_eq!(step["result"]["status"], "cancelled", "{step}");
    }
}

/// The value of the sample `name{labels}` in Prometheus text, if present.
fn sample(metrics: &str, name: &str, labels: &str) -> Option<f64> {
    let wanted = format!("{name}{{{labels}}} ");
    metrics
        .lines()
        .find_map(|line| line.strip_prefix(&wanted))
        .and_then(|value| value.trim().parse().ok())
}

#[tokio::test(flavor = "multi_thread")]
async fn health_readiness_and_metrics_answer_and_count_each_call() {
    let Some(python) = python() else { return };
    let base = serve().await;
    let (server, url) = replica(&base, "memory");
    let origin = origin(&url);
    let http = reqwest::Client::new();
    let get = |path: &str| {
        let request = http.get(format!("{origin}{path}"));
        async move {
            let reply = request.send().await.unwrap();
            (reply.status().as_u16(), reply.text().await.unwrap())
        }
    };
    assert_eq!(get("/healthz").await, (200, "ok\n".into()));
    assert_eq!(get("/readyz").await, (200, "ready\n".into()));

    let ten: Vec<Value> = (0..10)
        .map(|_| json!({"call": "get_pet_name", "arguments": {"pet_id": 1}}))
        .chain([json!({"call": "get_pet", "arguments": {"pet_id": 3}})])
        .collect();
    let seen = drive(&python, "modern", &Value::Array(ten), &["--url", &url], &[]);
    assert_eq!(steps(&seen).len(), 11);
    let (status, metrics) = get("/metrics").await;
    assert_eq!(status, 200);
    assert_eq!(
        sample(
            &metrics,
            "harness_tool_calls_total",
            "tool=\"get_pet_name\",outcome=\"ok\""
        ),
        Some(10.0),
        "{metrics}"
    );
    assert_eq!(
        sample(
            &metrics,
            "harness_tool_calls_total",
            "tool=\"get_pet\",outcome=\"application\""
        ),
        Some(1.0),
        "{metrics}"
    );
    assert_eq!(
        sample(
            &metrics,
            "harness_tool_call_duration_seconds_count",
            "tool=\"get_pet_name\""
        ),
        Some(10.0),
        "{metrics}"
    );
    assert_eq!(
        sample(
            &metrics,
            "harness_upstream_responses_total",
            "class=\"2xx\""
        ),
        Some(10.0),
        "{metrics}"
    );
    assert_eq!(
        sample(
            &metrics,
            "harness_upstream_responses_total",
            "class=\"4xx\""
        ),
        Some(1.0),
        "{metrics}"
    );
    assert!(metrics.contains("harness_mcp_tasks_running 0"), "{metrics}");
    assert!(metrics.contains("harness_mcp_sessions_open"), "{metrics}");

    // Each call is logged with its tool and outcome; no credential is.
    let logs = server.logs();
    assert!(logs.contains("tool call finished"), "{logs}");
    assert!(logs.contains("get_pet_name"), "{logs}");
    assert!(!logs.contains(harness_e2e::TOKEN), "{logs}");
    drop(server);

    // A task store that does not answer: up, but not ready, saying why.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let (unready, url) = replica(&base, &format!("redis://127.0.0.1:{port}"));
    let origin = self::origin(&url);
    let reply = http.get(format!("{origin}/readyz")).send().await.unwrap();
    assert_eq!(reply.status().as_u16(), 503);
    assert!(reply.text().await.unwrap().contains("task store"));
    drop(unready);
}

#[tokio::test(flavor = "multi_thread")]
async fn json_logs_and_metrics_on_their_own_address() {
    let base = serve().await;
    let metrics_port = {
        let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        free.local_addr().unwrap().port()
    };
    let metrics_addr = format!("127.0.0.1:{metrics_port}");
    let (server, url) = start_mcp_http_with(
        &base,
        &["--metrics-addr", &metrics_addr, "--log-format", "json"],
        &[("RUST_LOG", "harness_gen=debug")],
    );
    let origin = origin(&url);
    let http = reqwest::Client::new();
    // Not beside /mcp any more, but on its own address.
    let beside = http.get(format!("{origin}/metrics")).send().await.unwrap();
    assert_eq!(beside.status().as_u16(), 404);
    let mut own = None;
    for _ in 0..100 {
        if let Ok(reply) = http
            .get(format!("http://{metrics_addr}/metrics"))
            .send()
            .await
        {
            own = Some(reply);
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(own.unwrap().status().as_u16(), 200);

    // One call through rmcp's client; the logs are JSON lines, the upstream reply among them.
    let client = crate::petstore_mcp_tasks::connect(&url, false).await;
    let call = rmcp::model::CallToolRequestParams::new("get_pet_name")
        .with_arguments(json!({"pet_id": 1}).as_object().unwrap().clone());
    client.peer().call_tool_once(call).await.unwrap();
    let output = server.stop();
    let logs = String::from_utf8_lossy(&output.stderr);
    let events: Vec<Value> = logs
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    let upstream = events
        .iter()
        .find(|e| e["target"] == "harness_gen::upstream")
        .unwrap_or_else(|| panic!("an upstream event: {logs}"));
    assert_eq!(upstream["fields"]["status"], 200, "{upstream}");
    assert_eq!(
        upstream["fields"]["path"], "/pets/{petId}/name",
        "{upstream}"
    );
    assert_eq!(upstream["fields"]["method"], "GET", "{upstream}");
    assert_eq!(upstream["span"]["name"], "upstream_request", "{upstream}");
    assert_eq!(upstream["spans"][0]["tool"], "get_pet_name", "{upstream}");
    let finished = events
        .iter()
        .find(|e| e["fields"]["message"] == "tool call finished")
        .unwrap_or_else(|| panic!("a finished call: {logs}"));
    assert_eq!(finished["fields"]["outcome"], "ok", "{finished}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_lets_the_call_under_way_finish_then_exits_0() {
    let base = serve().await;
    let (server, url) = start_mcp_http_with(&base, &["--shutdown-grace", "20"], &[]);
    let origin = origin(&url);
    let client = crate::petstore_mcp_tasks::connect(&url, false).await;
    let call = rmcp::model::CallToolRequestParams::new("pets.create").with_arguments(
        json!({"body": {"name": "Slow", "species": "cat"}})
            .as_object()
            .unwrap()
            .clone(),
    );
    let under_way = tokio::spawn(async move { client.peer().call_tool_once(call).await });
    // Wait until the server has the call (its upstream request takes two seconds).
    assert!(in_flight(&origin, 2).await, "the call reaches the server");
    let stopped = tokio::task::spawn_blocking(move || server.terminate(Duration::from_secs(15)));
    let result = under_way
        .await
        .unwrap()
        .expect("the call under way is answered");
    match result {
        rmcp::model::CallToolResponse::Complete(result) => {
            assert_eq!(result.structured_content.unwrap()["id"], 44)
        }
        other => panic!("an inline result: {other:?}"),
    }
    let output = stopped.await.unwrap();
    let logs = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{logs}");
    assert!(logs.contains("stopping"), "{logs}");
}

/// Waits until the server at `origin` has at least `count` calls in flight (its `/metrics` says
/// so; a call over HTTP counts as its request and as its call); false if it never has.
async fn in_flight(origin: &str, count: usize) -> bool {
    let http = reqwest::Client::new();
    // The Python client takes a few seconds to start.
    for _ in 0..3000 {
        let metrics = http
            .get(format!("{origin}/metrics"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let now = metrics
            .lines()
            .find_map(|line| line.strip_prefix("harness_mcp_calls_in_flight "))
            .and_then(|n| n.trim().parse::<usize>().ok());
        if now.is_some_and(|now| now >= count) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

/// The official Python client's call under way is answered when the server is told to stop,
/// in both eras: the server goes on answering while the call lasts and just after (the client
/// opens new connections meanwhile, and lists the tools to check the result, which a closed
/// listener would refuse), turns new work away with 503 and `Retry-After`, reports itself not
/// ready, then exits 0.
#[tokio::test(flavor = "multi_thread")]
async fn sigterm_during_a_python_clients_call_answers_it_in_both_eras() {
    let Some(python) = python() else { return };
    let base = serve().await;
    for mode in ["legacy", "modern"] {
        let (server, url) = start_mcp_http_with(&base, &["--shutdown-grace", "20"], &[]);
        let origin = origin(&url);
        // pets.create waits two seconds upstream.
        let script = json!([
            {"call": "pets.create", "arguments": {"body": {"name": "Slow", "species": "cat"}}}
        ]);
        let (python, target) = (python.clone(), url.clone());
        let client = tokio::task::spawn_blocking(move || {
            drive(&python, mode, &script, &["--url", &target], &[])
        });
        // Two: the call's HTTP request and the call itself. One alone can be the client's
        // `initialize` or `server/discover` before the call, after which the call would be new
        // work that a draining server turns away.
        if !in_flight(&origin, 2).await {
            panic!(
                "{mode}: the call never reached the server: {:?}",
                client.await
            );
        }
        let stopped =
            tokio::task::spawn_blocking(move || server.terminate(Duration::from_secs(15)));
        // While the call lasts: not ready, and new work is turned away with a hint to come
        // back (elsewhere).
        let http = reqwest::Client::new();
        let mut refused = None;
        for _ in 0..100 {
            let ready = http.get(format!("{origin}/readyz")).send().await;
            if let Ok(ready) = ready
                && ready.status() == 503
            {
                // A client new to the server (its own connection).
                let fresh = reqwest::Client::new()
                    .post(&url)
                    .header("content-type", "application/json")
                    .header("accept", "application/json, text/event-stream")
                    .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_pet","arguments":{"pet_id":1}}}"#)
                    .send()
                    .await
                    .unwrap();
                refused = Some((fresh.status(), fresh.headers().get("retry-after").cloned()));
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let (status, retry_after) = refused.expect("the server reports itself not ready");
        assert_eq!(status, 503, "{mode}");
        assert!(retry_after.is_some(), "{mode}: Retry-After");
        let seen = client.await.unwrap();
        let step = &steps(&seen)[0];
        assert_eq!(
            step["result"]["structuredContent"]["id"], 44,
            "{mode}: the call under way is answered: {seen}"
        );
        let output = stopped.await.unwrap();
        let logs = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{mode}: {logs}");
    }
}

/// `pets.create` of a cat named `name`, called as a task; the task it created.
async fn create_pet_task(
    client: &rmcp::service::RunningService<rmcp::service::RoleClient, rmcp::model::ClientConfig>,
    name: &str,
) -> rmcp::model::Task {
    use rmcp::model::{CallToolRequestParams, CallToolResponse};
    let arguments = json!({"body": {"name": name, "species": "cat"}});
    let call = CallToolRequestParams::new("pets.create")
        .with_arguments(arguments.as_object().unwrap().clone());
    match client.peer().call_tool_once(call).await.unwrap() {
        CallToolResponse::Task(created) => created.task,
        other => panic!("a task: {other:?}"),
    }
}

/// A replica killed outright (SIGKILL) in the middle of a task leaves no task `working` for
/// an hour: once the lease it stopped renewing runs out, any replica reads the task as failed,
/// its worker lost.
#[tokio::test(flavor = "multi_thread")]
async fn a_task_whose_replica_is_killed_fails_as_worker_lost_within_its_lease() {
    use rmcp::model::{GetTaskParams, TaskPayload};
    let Some(redis) = redis() else { return };
    let base = serve().await;
    let (first, first_url) = replica(&base, &redis.url);
    let (_second, second_url) = replica(&base, &redis.url);
    let client = crate::petstore_mcp_tasks::connect(&first_url, true).await;
    // `Slow` takes two seconds upstream: the replica is killed while it works.
    let task = create_pet_task(&client, "Slow").await;
    drop(first);
    let killed = std::time::Instant::now();
    let other = crate::petstore_mcp_tasks::connect(&second_url, true).await;
    let failed = loop {
        let state = other
            .peer()
            .get_task(GetTaskParams::new(task.task_id.clone()))
            .await
            .unwrap();
        match state.task.payload {
            TaskPayload::Working => {}
            TaskPayload::Failed { error } => break Value::Object(error),
            other => panic!("a killed replica's task does not {other:?}"),
        }
        assert!(
            killed.elapsed() < Duration::from_secs(15),
            "still working {:?} after its replica was killed",
            killed.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(
        failed["message"].as_str().unwrap().contains("worker lost"),
        "{failed}"
    );
    // Not before the lease could have run out (the replica renewed it until it was killed).
    assert!(
        killed.elapsed() >= Duration::from_secs(3),
        "{:?}",
        killed.elapsed()
    );
}

/// Redis going away and coming back: the server stays up (`/healthz`), says it is not ready
/// while its store does not answer, answers a task read with an error rather than failing, and
/// reads the task again once Redis is back (kept on disk, as a production Redis keeps it).
#[tokio::test(flavor = "multi_thread")]
async fn a_redis_restart_leaves_the_server_up_and_not_ready_then_tasks_readable_again() {
    use rmcp::model::{GetTaskParams, TaskPayload};
    let Some(mut redis) = redis_persistent() else {
        return;
    };
    let base = serve().await;
    let (_server, url) = replica(&base, &redis.url);
    let origin = origin(&url);
    let http = reqwest::Client::new();
    let status = |path: &'static str| {
        let (http, origin) = (http.clone(), origin.clone());
        async move {
            http.get(format!("{origin}{path}"))
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        }
    };
    let client = crate::petstore_mcp_tasks::connect(&url, true).await;
    let task = create_pet_task(&client, "Kit").await;
    let read = || {
        client
            .peer()
            .get_task(GetTaskParams::new(task.task_id.clone()))
    };
    let mut result = None;
    for _ in 0..100 {
        if let TaskPayload::Completed { result: done } = read().await.unwrap().task.payload {
            result = Some(done);
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let result = result.expect("the task completes");
    assert_eq!(status("/readyz").await, 200);

    redis.stop();
    let mut ready = 200;
    for _ in 0..100 {
        ready = status("/readyz").await;
        if ready == 503 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(ready, 503, "not ready while Redis is away");
    assert_eq!(status("/healthz").await, 200, "still up");
    assert!(read().await.is_err(), "a task read is an error, not a hang");

    redis.start();
    for _ in 0..100 {
        ready = status("/readyz").await;
        if ready == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(ready, 200, "ready again once Redis answers");
    match read().await.unwrap().task.payload {
        TaskPayload::Completed { result: again } => assert_eq!(again, result),
        other => panic!("the task as it was: {other:?}"),
    }
}
