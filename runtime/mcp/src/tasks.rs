//! The MCP tasks extension (`io.modelcontextprotocol/tasks`, 2026): a tool call the server
//! runs in the background and the client polls. A completed task carries exactly the
//! `CallToolResult` projection an inline call returns ([`McpServer::call`]).
//!
//! A task belongs to whoever started it (the authenticated client, the session and the
//! per-request credentials: `McpServer::owner`); to anyone else it does not exist, and
//! `tasks/get` and `tasks/cancel` answer as for an unknown id. Tasks are kept [`TASK_TTL_MS`]
//! from their creation (a task still working then is stopped) and at most
//! [`MAX_TASKS_PER_OWNER`] per owner and [`MAX_TASKS`] in all: a new task past a cap makes the
//! oldest finished one give its place, and is refused when every one is still working.
//!
//! Their state lives in a [`TaskStore`]: this process's memory by default, or Redis for
//! replicas behind one load balancer, where a task started through one replica is read and
//! cancelled through any other (the replica running it watches the store for that cancel).

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rmcp::ErrorData as McpError;
use rmcp::model::{CreateTaskResult, GetTaskResult, JsonObject, Task, TaskPayload, TaskStatus};
use serde_json::{Map, Value};

use super::McpServer;
use harness_gen_client::CallCredentials;

#[cfg(feature = "redis")]
mod redis_store;
mod store;

#[cfg(feature = "redis")]
pub use redis_store::RedisStore;
pub use store::{MemoryStore, StoreError, Stored, TaskStore};

/// How long a finished task's result is kept, and the polling interval suggested to clients.
pub const TASK_TTL_MS: u64 = 3_600_000;
/// How long a task in a shared store stays working without word from the process running it
/// (which renews it four times a second): past it, the task is read as failed, its process
/// gone (killed, or cut off from the store).
pub const TASK_LEASE: Duration = Duration::from_secs(5);
const POLL_INTERVAL_MS: u64 = 100;

/// How often the process running a task looks in a shared store for a cancel made elsewhere.
const CANCEL_WATCH: Duration = Duration::from_millis(250);

/// The most tasks one owner has kept at once.
pub const MAX_TASKS_PER_OWNER: usize = 256;

/// The most tasks one server keeps at once.
pub const MAX_TASKS: usize = 10_000;

/// The tasks of one server: their store, and those this process runs.
pub(super) struct Tasks {
    store: Arc<dyn TaskStore>,
    running: Mutex<HashMap<String, tokio::task::AbortHandle>>,
    ids: RandomState,
}

impl Default for Tasks {
    fn default() -> Self {
        Self::new(Arc::new(MemoryStore::default()))
    }
}

impl Tasks {
    pub(super) fn new(store: Arc<dyn TaskStore>) -> Self {
        Self {
            store,
            running: Mutex::default(),
            ids: RandomState::new(),
        }
    }

    /// The store.
    pub(super) fn store(&self) -> &dyn TaskStore {
        &*self.store
    }

    /// How many tasks this process is running.
    pub(super) fn running(&self) -> usize {
        self.lock_running().len()
    }

    fn lock_running(&self) -> std::sync::MutexGuard<'_, HashMap<String, tokio::task::AbortHandle>> {
        // A poisoned map still holds consistent entries: every update is one insert or removal.
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// An id nobody can guess from another one (128 bits from the process's random keys).
    fn new_id(&self) -> String {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let seed = self.lock_running().len();
        let a = self.ids.hash_one((seed, now, 1u8));
        let b = self.ids.hash_one((seed, now, 2u8));
        format!("task-{a:016x}{b:016x}")
    }
}

fn store_error(error: StoreError) -> McpError {
    match error {
        StoreError::Full { .. } => McpError::invalid_request(error.to_string(), None),
        StoreError::Unavailable(_) => McpError::internal_error(error.to_string(), None),
    }
}

impl McpServer {
    /// Starts `name` as a task of `owner` and answers at once with its id.
    pub(super) async fn start_task(
        &self,
        name: String,
        arguments: Option<Map<String, Value>>,
        credentials: Option<CallCredentials>,
        owner: String,
    ) -> Result<CreateTaskResult, McpError> {
        let tasks = Arc::clone(&self.tasks);
        let at = now();
        let id = tasks.new_id();
        let task = Task::new(id.clone(), TaskStatus::Working, at.clone(), at)
            .with_ttl_ms(TASK_TTL_MS)
            .with_poll_interval_ms(POLL_INTERVAL_MS);
        tasks
            .store
            .create(&owner, &task)
            .await
            .map_err(store_error)?;
        let server = self.clone();
        let task_id = id.clone();
        let mut running = tasks.lock_running();
        let handle = tokio::spawn(async move {
            let _busy = server.activity.busy();
            // The task runs with the credentials of the request that started it, until its
            // time is up, or until a cancel made through another process shows in the store.
            let call = server.call(&name, arguments);
            let call = CallCredentials::scope_of(credentials, call);
            let payload = tokio::select! {
                outcome = tokio::time::timeout(Duration::from_millis(TASK_TTL_MS), call) => match outcome {
                    Ok(Ok(result)) => Some(TaskPayload::Completed { result: to_object(&result) }),
                    Ok(Err(error)) => Some(TaskPayload::Failed { error: to_object(&error) }),
                    Err(_) => {
                        tracing::warn!(target: "harness_gen::tasks", task = %task_id, "task stopped: its time is up");
                        None
                    }
                },
                () = cancelled_elsewhere(&*server.tasks.store, &task_id) => {
                    tracing::info!(target: "harness_gen::tasks", task = %task_id, "task stopped: it ended elsewhere (cancelled through another replica, or expired)");
                    None
                }
            };
            if let Some(payload) = payload
                && let Err(error) = server.tasks.store.finish(&task_id, &payload).await
            {
                tracing::error!(target: "harness_gen::tasks", task = %task_id, %error, "a task's outcome could not be kept");
            }
            server.tasks.lock_running().remove(&task_id);
        });
        running.insert(id, handle.abort_handle());
        Ok(CreateTaskResult::new(task))
    }

    /// `tasks/get` of `owner` (another owner's task does not exist for it).
    pub async fn get_task(&self, id: &str, owner: &str) -> Result<GetTaskResult, McpError> {
        match self.tasks.store.get(id, owner).await {
            Ok(Some(task)) => Ok(GetTaskResult::new(task)),
            Ok(None) => Err(unknown_task(id)),
            Err(error) => Err(store_error(error)),
        }
    }

    /// `tasks/cancel` of `owner`: stops a working task; a finished one keeps its outcome.
    pub async fn cancel_task(&self, id: &str, owner: &str) -> Result<(), McpError> {
        let store = &*self.tasks.store;
        match store.get(id, owner).await {
            Ok(Some(_)) => {}
            Ok(None) => return Err(unknown_task(id)),
            Err(error) => return Err(store_error(error)),
        }
        store
            .finish(id, &TaskPayload::Cancelled)
            .await
            .map_err(store_error)?;
        // Here when this process runs it; otherwise the one that does sees the cancel.
        if let Some(abort) = self.tasks.lock_running().remove(id) {
            abort.abort();
        }
        Ok(())
    }
}

impl McpServer {
    /// Stops the tasks this process runs and records them as failed: the server is stopping
    /// and will not finish them (in a shared store, the client reads that through any replica).
    pub(super) async fn abandon_tasks(&self) {
        let stopped: Vec<String> = self
            .tasks
            .lock_running()
            .drain()
            .map(|(id, abort)| {
                abort.abort();
                id
            })
            .collect();
        let error = McpError::internal_error(
            "the server stopped before the task finished: start it again",
            None,
        );
        let failed = TaskPayload::Failed {
            error: to_object(&error),
        };
        for id in stopped {
            let _ = self.tasks.store.finish(&id, &failed).await;
        }
    }
}

/// Resolves when task `id` has ended or is gone in a shared store (never for a store of this
/// process alone, where a cancel stops the task itself).
async fn cancelled_elsewhere(store: &dyn TaskStore, id: &str) {
    if !store.shared() {
        return std::future::pending().await;
    }
    loop {
        tokio::time::sleep(CANCEL_WATCH).await;
        // Each look renews the task's lease: this process still runs it.
        match store.renew(id).await {
            Ok(Some(TaskStatus::Working)) | Err(_) => {}
            Ok(_) => return,
        }
    }
}

fn unknown_task(id: &str) -> McpError {
    McpError::invalid_params(format!("unknown task `{id}`"), None)
}

fn to_object(value: &impl serde::Serialize) -> JsonObject {
    match serde_json::to_value(value) {
        Ok(Value::Object(map)) => map,
        _ => JsonObject::new(),
    }
}

/// Now, as task timestamps say it.
pub(crate) fn now() -> String {
    timestamp(SystemTime::now())
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC).
fn timestamp(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (days, rest) = ((secs / 86_400) as i64, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3_600,
        rest % 3_600 / 60,
        rest % 60,
        since.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_iso_8601_utc() {
        assert_eq!(timestamp(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let leap = UNIX_EPOCH + Duration::from_millis(1_709_210_096_789);
        assert_eq!(timestamp(leap), "2024-02-29T12:34:56.789Z");
    }
}
