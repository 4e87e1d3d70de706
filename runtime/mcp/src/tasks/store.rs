//! Where tasks are kept: [`TaskStore`], in this process's memory ([`MemoryStore`], the default)
//! or in Redis (`RedisStore`, feature `redis`) for replicas that share their tasks.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use rmcp::model::{DetailedTask, Task, TaskPayload, TaskStatus};

use super::{MAX_TASKS, MAX_TASKS_PER_OWNER, TASK_TTL_MS};

/// Why a store did not do what was asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreError {
    /// A cap is reached and every task in the way is still working.
    Full {
        /// The cap.
        cap: usize,
    },
    /// The store did not answer, or answered what this server cannot read.
    Unavailable(String),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Full { cap } => write!(
                f,
                "too many tasks are still working ({cap}): wait for some to finish, or cancel some"
            ),
            StoreError::Unavailable(why) => write!(f, "the task store is unavailable: {why}"),
        }
    }
}

/// What a store's operations return.
pub type Stored<'a, T> = BoxFuture<'a, Result<T, StoreError>>;

/// Where a server keeps its tasks: their state, outcome and owner, for [`TASK_TTL_MS`] from
/// their creation, at most 256 per owner and 10,000 in all (a new
/// task past a cap makes the oldest finished one give its place). The running itself stays in
/// the process that started the task; a store shared by several processes ([`TaskStore::shared`])
/// lets any of them read a task's state and cancel it.
pub trait TaskStore: Send + Sync {
    /// Keeps `task` (working) as `owner`'s, making room under the caps.
    fn create<'a>(&'a self, owner: &'a str, task: &'a Task) -> Stored<'a, ()>;

    /// Ends task `id` with `payload` (its status and time of update set from it) if it is still
    /// working; `false` when it had ended already (cancelled) or is gone.
    fn finish<'a>(&'a self, id: &'a str, payload: &'a TaskPayload) -> Stored<'a, bool>;

    /// Task `id`, when it is `owner`'s and not past its time.
    fn get<'a>(&'a self, id: &'a str, owner: &'a str) -> Stored<'a, Option<DetailedTask>>;

    /// The status of task `id` whoever's it is (`None`: gone), which the process running it
    /// watches for a cancel made elsewhere; a working task's lease is extended to
    /// [`TASK_LEASE`](super::TASK_LEASE) from now. (A shared store fails a working task whose
    /// lease has run out when it is read: the process running it is gone.)
    fn renew<'a>(&'a self, id: &'a str) -> Stored<'a, Option<TaskStatus>>;

    /// `Ok` when the store answers (the server's readiness).
    fn ping(&self) -> Stored<'_, ()>;

    /// Whether other processes share this store.
    fn shared(&self) -> bool;
}

/// `task` ended with `payload`, updated at `now`.
pub(crate) fn ended(mut task: Task, payload: &TaskPayload, now: String) -> Task {
    task.status = payload.status();
    task.last_updated_at = now;
    task
}

/// Tasks in this process's memory: lost when it stops, seen by no other process.
#[derive(Default)]
pub struct MemoryStore {
    entries: Mutex<HashMap<String, Entry>>,
}

struct Entry {
    task: Task,
    payload: TaskPayload,
    /// Whose it is (`McpServer::owner`).
    owner: String,
    created: Instant,
}

impl Entry {
    fn expired(&self, now: Instant) -> bool {
        now.saturating_duration_since(self.created) > Duration::from_millis(TASK_TTL_MS)
    }

    fn working(&self) -> bool {
        !self.payload.status().is_terminal()
    }
}

impl MemoryStore {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        // A poisoned map still holds consistent entries: every update is one insert.
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Forgets the tasks past their time, then makes room for one more task of `owner`.
    fn make_room(
        entries: &mut HashMap<String, Entry>,
        owner: &str,
        now: Instant,
    ) -> Result<(), StoreError> {
        entries.retain(|_, entry| !entry.expired(now));
        let theirs = entries.values().filter(|e| e.owner == owner).count();
        for (mine, cap) in [(true, MAX_TASKS_PER_OWNER), (false, MAX_TASKS)] {
            let count = if mine { theirs } else { entries.len() };
            if count < cap {
                continue;
            }
            let oldest_finished = entries
                .iter()
                .filter(|(_, e)| !e.working() && (!mine || e.owner == owner))
                .min_by_key(|(_, e)| e.created)
                .map(|(id, _)| id.clone());
            match oldest_finished {
                Some(id) => {
                    entries.remove(&id);
                }
                None => return Err(StoreError::Full { cap }),
            }
        }
        Ok(())
    }
}

impl TaskStore for MemoryStore {
    fn create<'a>(&'a self, owner: &'a str, task: &'a Task) -> Stored<'a, ()> {
        let mut entries = self.lock();
        let made = Self::make_room(&mut entries, owner, Instant::now()).map(|()| {
            let entry = Entry {
                task: task.clone(),
                payload: TaskPayload::Working,
                owner: owner.to_owned(),
                created: Instant::now(),
            };
            entries.insert(task.task_id.clone(), entry);
        });
        Box::pin(std::future::ready(made))
    }

    fn finish<'a>(&'a self, id: &'a str, payload: &'a TaskPayload) -> Stored<'a, bool> {
        let mut entries = self.lock();
        let done = match entries.get_mut(id) {
            Some(entry) if entry.working() => {
                entry.task = ended(entry.task.clone(), payload, super::now());
                entry.payload = payload.clone();
                true
            }
            _ => false,
        };
        Box::pin(std::future::ready(Ok(done)))
    }

    fn get<'a>(&'a self, id: &'a str, owner: &'a str) -> Stored<'a, Option<DetailedTask>> {
        let entries = self.lock();
        let found = entries
            .get(id)
            .filter(|entry| harness_gen_serve::same(entry.owner.as_bytes(), owner.as_bytes()))
            .filter(|entry| !entry.expired(Instant::now()))
            .map(|entry| DetailedTask::new(entry.task.clone(), entry.payload.clone()));
        Box::pin(std::future::ready(Ok(found)))
    }

    fn renew<'a>(&'a self, id: &'a str) -> Stored<'a, Option<TaskStatus>> {
        // A task in this process's memory ends with the process: it needs no lease.
        let entries = self.lock();
        let status = entries
            .get(id)
            .filter(|entry| !entry.expired(Instant::now()))
            .map(|entry| entry.payload.status());
        Box::pin(std::future::ready(Ok(status)))
    }

    fn ping(&self) -> Stored<'_, ()> {
        Box::pin(std::future::ready(Ok(())))
    }

    fn shared(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(owner: &str, working: bool, created: Instant) -> Entry {
        let task = Task::new(
            "t".to_string(),
            TaskStatus::Working,
            String::new(),
            String::new(),
        );
        Entry {
            task,
            payload: if working {
                TaskPayload::Working
            } else {
                TaskPayload::Cancelled
            },
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
        let full = MemoryStore::make_room(&mut entries, "a", at(20));
        assert_eq!(
            full,
            Err(StoreError::Full {
                cap: MAX_TASKS_PER_OWNER
            })
        );
        assert!(MemoryStore::make_room(&mut entries, "b", at(20)).is_ok());
        // A finished one gives its place (the oldest finished first).
        entries.insert("a0".into(), entry("a", false, at(1)));
        entries.insert("a1".into(), entry("a", false, at(5)));
        assert!(MemoryStore::make_room(&mut entries, "a", at(20)).is_ok());
        assert!(!entries.contains_key("a0") && entries.contains_key("a1"));
        // Tasks past their time are gone, working or not.
        entries.insert("a2".into(), entry("a", true, at(0)));
        entries.insert("b0".into(), entry("b", false, at(0)));
        let later = start + Duration::from_millis(TASK_TTL_MS) + Duration::from_secs(1);
        assert!(MemoryStore::make_room(&mut entries, "b", later).is_ok());
        assert!(!entries.contains_key("a2") && !entries.contains_key("b0"));
    }

    #[tokio::test]
    async fn a_task_ends_once_and_only_its_owner_sees_it() {
        let store = MemoryStore::default();
        let at = String::from("a");
        let task = Task::new(String::from("t1"), TaskStatus::Working, at.clone(), at);
        store.create("alice", &task).await.unwrap();
        assert!(store.get("t1", "bob").await.unwrap().is_none());
        assert!(store.finish("t1", &TaskPayload::Cancelled).await.unwrap());
        let completed = TaskPayload::Completed {
            result: Default::default(),
        };
        assert!(!store.finish("t1", &completed).await.unwrap());
        let seen = store.get("t1", "alice").await.unwrap().unwrap();
        assert_eq!(seen.status(), TaskStatus::Cancelled);
        assert_eq!(
            store.renew("t1").await.unwrap(),
            Some(TaskStatus::Cancelled)
        );
    }
}
