//! Tasks in Redis, where every replica of a server reads them (`--task-store redis://…`).
//!
//! Each task is a hash `PREFIX task:ID` (`owner`, `status`, `record`: the task and its outcome
//! as `tasks/get` answers them) that expires [`TASK_TTL_MS`] after its creation. The caps are
//! kept with two sorted sets of ids by creation time, `PREFIX owner:HASH` and `PREFIX all`;
//! an id whose hash is gone is dropped from them when next seen. A task ends once: the
//! update is a script that writes only while `status` is `working`, so a cancel made through
//! one replica wins over the result the running one writes later.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use rmcp::model::{DetailedTask, Task, TaskPayload, TaskStatus};

use super::store::{StoreError, Stored, TaskStore, ended};
use super::{MAX_TASKS, MAX_TASKS_PER_OWNER, TASK_LEASE, TASK_TTL_MS};

/// A task store in Redis.
pub struct RedisStore {
    connection: ConnectionManager,
    prefix: String,
    finish: redis::Script,
    renew: redis::Script,
}

/// Ends a task that is still working: KEYS[1] the task, ARGV[1] its status, ARGV[2] its record.
const FINISH: &str = r"
if redis.call('HGET', KEYS[1], 'status') == 'working' then
  redis.call('HSET', KEYS[1], 'status', ARGV[1], 'record', ARGV[2])
  return 1
end
return 0
";

/// How long one answer of Redis may take before the store counts as unavailable.
/// Extends a working task's lease (ARGV[1], when it runs out, in milliseconds since the epoch)
/// and answers its status (nil when it is gone).
const RENEW: &str = r"
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'working' then
  redis.call('HSET', KEYS[1], 'lease', ARGV[1])
end
return status
";

const ANSWER_TIMEOUT: Duration = Duration::from_secs(5);

fn unavailable(error: redis::RedisError) -> StoreError {
    StoreError::Unavailable(error.to_string())
}

fn unreadable(error: serde_json::Error) -> StoreError {
    StoreError::Unavailable(format!("a task in the store cannot be read: {error}"))
}

fn status_text(status: TaskStatus) -> String {
    serde_json::to_value(status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// A task's owner, record, status and lease as `HMGET` reads them.
type Fields = (Option<String>, Option<String>, Option<String>, Option<u64>);

/// When a lease renewed at `now` runs out.
fn lease_from(now: u64) -> u64 {
    now + TASK_LEASE.as_millis() as u64
}

/// The outcome of a task whose process went away without a word.
fn worker_lost() -> TaskPayload {
    let error = rmcp::ErrorData::internal_error(
        "worker lost: the server running the task stopped without finishing it (its lease ran out): start it again",
        None,
    );
    let error = match serde_json::to_value(error) {
        Ok(serde_json::Value::Object(error)) => error,
        _ => serde_json::Map::new(),
    };
    TaskPayload::Failed { error }
}

fn millis_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl RedisStore {
    /// A store at `url` (`redis://[:password@]host[:port][/db]`; `rediss://` needs TLS, which
    /// this build leaves out), its keys under `prefix`. Connects when first used, and again
    /// after a connection is lost.
    pub fn open(url: &str, prefix: &str) -> Result<Self, String> {
        let client = redis::Client::open(url)
            .map_err(|e| format!("--task-store `{url}` is not a Redis URL: {e}"))?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(ANSWER_TIMEOUT))
            .set_response_timeout(Some(ANSWER_TIMEOUT))
            .set_number_of_retries(2);
        let connection = ConnectionManager::new_lazy_with_config(client, config)
            .map_err(|e| format!("--task-store `{url}`: {e}"))?;
        Ok(Self {
            connection,
            prefix: prefix.to_owned(),
            finish: redis::Script::new(FINISH),
            renew: redis::Script::new(RENEW),
        })
    }

    fn task_key(&self, id: &str) -> String {
        format!("{}task:{id}", self.prefix)
    }

    fn owner_key(&self, owner: &str) -> String {
        format!("{}owner:{owner}", self.prefix)
    }

    fn all_key(&self) -> String {
        format!("{}all", self.prefix)
    }

    /// Makes room for one more id in the sorted set `key` under `cap`: ids past their time and
    /// ids whose task is gone leave it; then, at the cap, the oldest finished task is deleted.
    async fn make_room(&self, key: &str, cap: usize, now: u64) -> Result<(), StoreError> {
        let mut connection = self.connection.clone();
        let oldest_kept = now.saturating_sub(TASK_TTL_MS);
        let ids: Vec<String> = redis::pipe()
            .cmd("ZREMRANGEBYSCORE")
            .arg(key)
            .arg("-inf")
            .arg(format!("({oldest_kept}"))
            .ignore()
            .cmd("ZRANGE")
            .arg(key)
            .arg(0)
            .arg(-1)
            .query_async::<(Vec<String>,)>(&mut connection)
            .await
            .map_err(unavailable)?
            .0;
        if ids.len() < cap {
            return Ok(());
        }
        // Oldest first: the status of each, in one round trip.
        let mut statuses = redis::pipe();
        for id in &ids {
            statuses.cmd("HGET").arg(self.task_key(id)).arg("status");
        }
        let statuses: Vec<Option<String>> = statuses
            .query_async(&mut connection)
            .await
            .map_err(unavailable)?;
        let gone: Vec<&String> = ids
            .iter()
            .zip(&statuses)
            .filter(|(_, status)| status.is_none())
            .map(|(id, _)| id)
            .collect();
        let mut room = redis::pipe();
        for id in &gone {
            room.cmd("ZREM").arg(key).arg(*id).ignore();
        }
        if ids.len() - gone.len() >= cap {
            let finished = ids
                .iter()
                .zip(&statuses)
                .find(|(_, status)| status.as_deref().is_some_and(|s| s != "working"));
            let Some((id, _)) = finished else {
                return Err(StoreError::Full { cap });
            };
            room.cmd("DEL").arg(self.task_key(id)).ignore();
            room.cmd("ZREM").arg(key).arg(id).ignore();
        }
        room.query_async::<()>(&mut connection)
            .await
            .map_err(unavailable)
    }
}

impl TaskStore for RedisStore {
    fn create<'a>(&'a self, owner: &'a str, task: &'a Task) -> Stored<'a, ()> {
        Box::pin(async move {
            let now = millis_now();
            let (owner_key, all_key) = (self.owner_key(owner), self.all_key());
            self.make_room(&owner_key, MAX_TASKS_PER_OWNER, now).await?;
            self.make_room(&all_key, MAX_TASKS, now).await?;
            let record =
                serde_json::to_string(&DetailedTask::new(task.clone(), TaskPayload::Working))
                    .map_err(unreadable)?;
            let key = self.task_key(&task.task_id);
            let ttl = TASK_TTL_MS;
            redis::pipe()
                .atomic()
                .cmd("HSET")
                .arg(&key)
                .arg("owner")
                .arg(owner)
                .arg("status")
                .arg("working")
                .arg("record")
                .arg(record)
                .arg("lease")
                .arg(lease_from(now))
                .ignore()
                .cmd("PEXPIRE")
                .arg(&key)
                .arg(ttl)
                .ignore()
                .cmd("ZADD")
                .arg(&owner_key)
                .arg(now)
                .arg(&task.task_id)
                .ignore()
                .cmd("PEXPIRE")
                .arg(&owner_key)
                .arg(ttl)
                .ignore()
                .cmd("ZADD")
                .arg(&all_key)
                .arg(now)
                .arg(&task.task_id)
                .ignore()
                .query_async::<()>(&mut self.connection.clone())
                .await
                .map_err(unavailable)
        })
    }

    fn finish<'a>(&'a self, id: &'a str, payload: &'a TaskPayload) -> Stored<'a, bool> {
        Box::pin(async move {
            let key = self.task_key(id);
            let mut connection = self.connection.clone();
            let record: Option<String> = redis::cmd("HGET")
                .arg(&key)
                .arg("record")
                .query_async(&mut connection)
                .await
                .map_err(unavailable)?;
            let Some(record) = record else {
                return Ok(false);
            };
            let before: DetailedTask = serde_json::from_str(&record).map_err(unreadable)?;
            let task = ended(before.task, payload, super::now());
            let status = status_text(task.status);
            let record = serde_json::to_string(&DetailedTask::new(task, payload.clone()))
                .map_err(unreadable)?;
            let written: i64 = self
                .finish
                .key(&key)
                .arg(status)
                .arg(record)
                .invoke_async(&mut connection)
                .await
                .map_err(unavailable)?;
            Ok(written == 1)
        })
    }

    fn get<'a>(&'a self, id: &'a str, owner: &'a str) -> Stored<'a, Option<DetailedTask>> {
        Box::pin(async move {
            let key = self.task_key(id);
            let mut connection = self.connection.clone();
            let mut read = redis::cmd("HMGET");
            read.arg(&key)
                .arg("owner")
                .arg("record")
                .arg("status")
                .arg("lease");
            let (stored_owner, record, status, lease): Fields = read
                .query_async(&mut connection)
                .await
                .map_err(unavailable)?;
            let (Some(stored_owner), Some(mut record)) = (stored_owner, record) else {
                return Ok(None);
            };
            if !harness_gen_serve::same(stored_owner.as_bytes(), owner.as_bytes()) {
                return Ok(None);
            }
            // Working with its lease run out: the process running it is gone. (A task kept by
            // a server without leases has none, and stays as it is.)
            let lapsed = lease.is_some_and(|lease| lease < millis_now());
            if status.as_deref() == Some("working") && lapsed {
                self.finish(id, &worker_lost()).await?;
                let (_, again, _, _): Fields = read
                    .query_async(&mut connection)
                    .await
                    .map_err(unavailable)?;
                match again {
                    Some(again) => record = again,
                    None => return Ok(None),
                }
            }
            serde_json::from_str(&record).map(Some).map_err(unreadable)
        })
    }

    fn renew<'a>(&'a self, id: &'a str) -> Stored<'a, Option<TaskStatus>> {
        Box::pin(async move {
            let status: Option<String> = self
                .renew
                .key(self.task_key(id))
                .arg(lease_from(millis_now()))
                .invoke_async(&mut self.connection.clone())
                .await
                .map_err(unavailable)?;
            status
                .map(|text| serde_json::from_value(serde_json::Value::String(text)))
                .transpose()
                .map_err(unreadable)
        })
    }

    fn ping(&self) -> Stored<'_, ()> {
        Box::pin(async move {
            redis::cmd("PING")
                .query_async::<String>(&mut self.connection.clone())
                .await
                .map(drop)
                .map_err(unavailable)
        })
    }

    fn shared(&self) -> bool {
        true
    }
}
