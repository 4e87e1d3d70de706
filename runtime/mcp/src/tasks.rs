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

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rmcp::ErrorData as McpError;
use rmcp::model::{
    CreateTaskResult, DetailedTask, GetTaskResult, JsonObject, Task, TaskPayload, TaskStatus,
};
use serde_json::{Map, Value};

use super::McpServer;
use harness_gen_client::CallCredentials;

/// How long a finished task's result is kept, and the polling interval suggested to clients.
pub const TASK_TTL_MS: u64 = 3_600_000;
const POLL_INTERVAL_MS: u64 = 100;

/// The most tasks one owner has kept at once.
pub const MAX_TASKS_PER_OWNER: usize = 256;

/// The most tasks one server keeps at once.
pub const MAX_TASKS: usize = 10_000;

/// Tasks of one server, by id.
#[derive(Default)]
pub(super) struct Tasks {
    entries: Mutex<HashMap<String, Entry>>,
    ids: RandomState,
}

struct Entry {
    task: Task,
    payload: TaskPayload,
    abort: Option<tokio::task::AbortHandle>,
    /// Whose it is (`McpServer::owner`).
    owner: String,
    created: Instant,
}

impl Entry {
    fn expired(&self, now: Instant) -> bool {
        now.saturating_duration_since(self.created) > Duration::from_millis(TASK_TTL_MS)
    }
}

impl Tasks {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        // A poisoned map still holds consistent entries: every update is one insert.
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Forgets the tasks past their time (stopping those still working), then makes room for
    /// one more task of `owner`: `Err` when every task in the way is still working.
    fn make_room(
        entries: &mut HashMap<String, Entry>,
        owner: &str,
        now: Instant,
    ) -> Result<(), McpError> {
        entries.retain(|_, entry| {
            let keep = !entry.expired(now);
            if !keep && let Some(abort) = &entry.abort {
                abort.abort();
            }
            keep
        });
        let theirs = entries.values().filter(|e| e.owner == owner).count();
        for (mine, cap) in [(true, MAX_TASKS_PER_OWNER), (false, MAX_TASKS)] {
            let count = if mine { theirs } else { entries.len() };
            if count < cap {
                continue;
            }
            let oldest_finished = entries
                .iter()
                .filter(|(_, e)| e.abort.is_none() && (!mine || e.owner == owner))
                .min_by_key(|(_, e)| e.created)
                .map(|(id, _)| id.clone());
            match oldest_finished {
                Some(id) => {
                    entries.remove(&id);
                }
                None => {
                    return Err(McpError::invalid_request(
                        format!(
                            "too many tasks are still working ({cap}): wait for some to finish, or cancel some"
                        ),
                        None,
                    ));
                }
            }
        }
        Ok(())
    }

    /// An id nobody can guess from another one (128 bits from the process's random keys).
    fn new_id(&self, seed: usize) -> String {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let a = self.ids.hash_one((seed, now, 1u8));
        let b = self.ids.hash_one((seed, now, 2u8));
        format!("task-{a:016x}{b:016x}")
    }
}

impl McpServer {
    /// Starts `name` as a task of `owner` and answers at once with its id.
    pub(super) fn start_task(
        &self,
        name: String,
        arguments: Option<Map<String, Value>>,
        credentials: Option<CallCredentials>,
        owner: String,
    ) -> Result<CreateTaskResult, McpError> {
        let tasks = &self.inner.tasks;
        let now = timestamp(SystemTime::now());
        let mut entries = tasks.lock();
        Tasks::make_room(&mut entries, &owner, Instant::now())?;
        let id = tasks.new_id(entries.len());
        let task = Task::new(id.clone(), TaskStatus::Working, now.clone(), now)
            .with_ttl_ms(TASK_TTL_MS)
            .with_poll_interval_ms(POLL_INTERVAL_MS);
        let server = self.clone();
        let task_id = id.clone();
        let handle = tokio::spawn(async move {
            // The task runs with the credentials of the request that started it.
            let call = server.call(&name, arguments);
            let payload = match CallCredentials::scope_of(credentials, call).await {
                Ok(result) => TaskPayload::Completed {
                    result: to_object(&result),
                },
                Err(error) => TaskPayload::Failed {
                    error: to_object(&error),
                },
            };
            server.finish(&task_id, payload);
        });
        entries.insert(
            id,
            Entry {
                task: task.clone(),
                payload: TaskPayload::Working,
                abort: Some(handle.abort_handle()),
                owner,
                created: Instant::now(),
            },
        );
        Ok(CreateTaskResult::new(task))
    }

    fn finish(&self, id: &str, payload: TaskPayload) {
        let mut entries = self.inner.tasks.lock();
        if let Some(entry) = entries.get_mut(id) {
            if entry.payload.status().is_terminal() {
                return;
            }
            entry.task.status = payload.status();
            entry.task.last_updated_at = timestamp(SystemTime::now());
            entry.payload = payload;
            entry.abort = None;
        }
    }

    /// `tasks/get` of `owner` (another owner's task does not exist for it).
    pub fn get_task(&self, id: &str, owner: &str) -> Result<GetTaskResult, McpError> {
        let entries = self.inner.tasks.lock();
        let entry = owned(&entries, id, owner)?;
        Ok(GetTaskResult::new(DetailedTask::new(
            entry.task.clone(),
            entry.payload.clone(),
        )))
    }

    /// `tasks/cancel` of `owner`: stops a working task; a finished one keeps its outcome.
    pub fn cancel_task(&self, id: &str, owner: &str) -> Result<(), McpError> {
        let abort = {
            let entries = self.inner.tasks.lock();
            let entry = owned(&entries, id, owner)?;
            entry.abort.clone()
        };
        if let Some(abort) = abort {
            abort.abort();
            self.finish(id, TaskPayload::Cancelled);
        }
        Ok(())
    }
}

/// The task `id` if `owner`'s and not past its time; otherwise exactly what an unknown id gets.
fn owned<'a>(
    entries: &'a HashMap<String, Entry>,
    id: &str,
    owner: &str,
) -> Result<&'a Entry, McpError> {
    entries
        .get(id)
        .filter(|entry| harness_gen_serve::same(entry.owner.as_bytes(), owner.as_bytes()))
        .filter(|entry| !entry.expired(Instant::now()))
        .ok_or_else(|| unknown_task(id))
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
    use std::time::Duration;

    fn entry(owner: &str, working: bool, created: Instant) -> Entry {
        let task = Task::new(
            "t".to_string(),
            TaskStatus::Working,
            String::new(),
            String::new(),
        );
        let abort = working.then(|| {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .build()
                .unwrap();
            runtime.block_on(async { tokio::spawn(async {}).abort_handle() })
        });
        Entry {
            task,
            payload: TaskPayload::Working,
            abort,
            owner: owner.into(),
            created,
        }
    }

    #[test]
    fn a_task_flood_is_capped_per_owner_and_finished_tasks_give_their_place() {
        let start = Instant::now();
        let at = |secs: u64| start + Duration::from_secs(secs);
        let mut entries: HashMap<String, Entry> = (0..MAX_TASKS_PER_OWNER)
            .map(|i| (format!("a{i}"), entry("a", true, at(10))))
            .collect();
        // Every task of `a` still works: a new one is refused, another owner's is not.
        assert!(Tasks::make_room(&mut entries, "a", at(20)).is_err());
        assert!(Tasks::make_room(&mut entries, "b", at(20)).is_ok());
        // A finished one gives its place (the oldest finished first).
        entries.insert("a0".into(), entry("a", false, at(1)));
        entries.insert("a1".into(), entry("a", false, at(5)));
        assert!(Tasks::make_room(&mut entries, "a", at(20)).is_ok());
        assert!(!entries.contains_key("a0") && entries.contains_key("a1"));
        // Tasks past their time are gone, working or not.
        entries.insert("a2".into(), entry("a", true, at(0)));
        entries.insert("b0".into(), entry("b", false, at(0)));
        let later = start + Duration::from_millis(TASK_TTL_MS) + Duration::from_secs(1);
        assert!(Tasks::make_room(&mut entries, "b", later).is_ok());
        assert!(!entries.contains_key("a2") && !entries.contains_key("b0"));
    }

    #[test]
    fn timestamps_are_iso_8601_utc() {
        assert_eq!(timestamp(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let leap = UNIX_EPOCH + Duration::from_millis(1_709_210_096_789);
        assert_eq!(timestamp(leap), "2024-02-29T12:34:56.789Z");
    }
}
