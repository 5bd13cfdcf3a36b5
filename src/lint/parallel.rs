//! [`parallel_each`]: a function over many items on the machine's cores, the results handed
//! over in order on the calling thread (lint's discovery and its file checks).

/// How many items a thread of [`parallel_each`] takes at a time.
const BLOCK: usize = 32;

/// One block of [`parallel_each`]'s results: not done yet, done (waiting to be handed
/// over), or taken.
enum Block<R> {
    Todo,
    Done(Vec<R>),
    Taken,
}

/// `f` over `items` (with each one's index) on the machine's cores, each result handed to
/// `sink` on the calling thread in the order of `items`. The items go in blocks of [`BLOCK`]
/// to whichever thread is free (a thread the scheduler holds back, on a busy machine, takes
/// fewer); the calling thread works too and hands results over as soon as they are next in
/// order, so that what `sink` does overlaps with the other threads' work and few results
/// wait at a time. The items stay in their vector until a thread takes them: no copy of them
/// all is made (lint's inputs are thousands, and memory that a run touches once, early, is
/// still resident at its end, where its peak is).
pub(in crate::lint) fn parallel_each<T: Send, R: Send>(
    items: Vec<T>,
    f: impl Fn(usize, T) -> R + Sync,
    mut sink: impl FnMut(R),
) {
    use std::sync::{Condvar, Mutex};
    // Asked once per process: it reads the cgroup's CPU quota from /proc and /sys each time.
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let threads =
        *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(8)));
    if threads < 2 || items.len() < 2 * BLOCK {
        items
            .into_iter()
            .enumerate()
            .map(|(i, t)| f(i, t))
            .for_each(sink);
        return;
    }
    let blocks: Vec<Mutex<Block<R>>> = (0..items.len().div_ceil(BLOCK))
        .map(|_| Mutex::new(Block::Todo))
        .collect();
    // The items still to take, and the index of the next block.
    let todo = Mutex::new((0usize, items.into_iter()));
    let done = Condvar::new();
    // Emptied result vectors, handed back by the calling thread for the next blocks: a block's
    // results take more than a kilobyte, and with glibc every allocation that size sweeps the
    // allocator's free lists of small blocks (one allocation per block cost about 5% of
    // lint's CPU time).
    let spare: Mutex<Vec<Vec<R>>> = Mutex::new(Vec::new());
    // Take the next block still to do (into `mine`, the thread's own buffer) and run `f` over
    // it; false when none is left.
    let work = |mine: &mut Vec<T>, out: &mut dyn FnMut(usize, Vec<R>)| -> bool {
        let b = {
            let mut g = match todo.lock() {
                Ok(g) => g,
                Err(e) => e.into_inner(),
            };
            let (next, items) = &mut *g;
            mine.extend(items.by_ref().take(BLOCK));
            *next += 1;
            *next - 1
        };
        if mine.is_empty() {
            return false;
        }
        let mut results = match spare.lock() {
            Ok(mut s) => s.pop(),
            Err(e) => e.into_inner().pop(),
        }
        .unwrap_or_default();
        let first = b * BLOCK;
        results.extend(mine.drain(..).enumerate().map(|(k, t)| f(first + k, t)));
        out(b, results);
        true
    };
    // Hand `results` to `sink` and keep the emptied vector for another block.
    let drain = |mut results: Vec<R>, sink: &mut dyn FnMut(R)| {
        results.drain(..).for_each(sink);
        match spare.lock() {
            Ok(mut s) => s.push(results),
            Err(e) => e.into_inner().push(results),
        }
    };
    let store = |b: usize, results: Vec<R>| {
        if let Some(slot) = blocks.get(b) {
            match slot.lock() {
                Ok(mut g) => *g = Block::Done(results),
                Err(e) => *e.into_inner() = Block::Done(results),
            }
            done.notify_all();
        }
    };
    let n = threads.min(blocks.len());
    let pins = pin::Pins::new(n);
    std::thread::scope(|s| {
        let handles: Vec<_> = (1..n)
            .map(|i| {
                let pins = &pins;
                s.spawn(move || {
                    pins.pin(i);
                    let mut mine = Vec::with_capacity(BLOCK);
                    while work(&mut mine, &mut |b, r| store(b, r)) {}
                })
            })
            .collect();
        pins.pin(0);
        let mut mine_here = Vec::with_capacity(BLOCK);
        // Hand over the blocks in order, working while the next one is not done.
        let mut first = 0;
        while first < blocks.len() {
            let ready = match blocks[first].lock() {
                Ok(mut g) => match std::mem::replace(&mut *g, Block::Taken) {
                    Block::Done(r) => Some(r),
                    other => {
                        *g = other;
                        None
                    }
                },
                Err(_) => None,
            };
            if let Some(results) = ready {
                drain(results, &mut sink);
                first += 1;
                continue;
            }
            let mut mine: Option<(usize, Vec<R>)> = None;
            if work(&mut mine_here, &mut |b, r| mine = Some((b, r))) {
                if let Some((b, r)) = mine {
                    if b == first {
                        drain(r, &mut sink);
                        first += 1;
                    } else {
                        store(b, r);
                    }
                }
                continue;
            }
            // Nothing left to take: wait for the block another thread is working on (or
            // for that thread's end, when it panicked).
            if handles.iter().all(|h| h.is_finished()) {
                let finished = matches!(blocks[first].lock().as_deref(), Ok(Block::Done(_)));
                if !finished {
                    break;
                }
                continue;
            }
            if let Ok(g) = blocks[first].lock() {
                let _unused =
                    done.wait_timeout_while(g, std::time::Duration::from_millis(50), |b| {
                        !matches!(b, Block::Done(_))
                    });
            }
        }
        for h in handles {
            if let Err(e) = h.join() {
                std::panic::resume_unwind(e);
            }
        }
    });
}

/// Each of [`parallel_each`]'s threads on a CPU of its own.
///
/// Left to the scheduler, the two threads of a lint on a two-core virtual machine were seen
/// sharing one core in turns of 4 ms for 20 ms at a time, the other core idle (a third of
/// the runs took half as long again). Each thread is therefore bound to one of the CPUs the
/// process may use (the calling thread to the one it is on), and the calling thread gets its
/// own set back when it is dropped. With fewer CPUs allowed than threads, or where this cannot be
/// done, nothing is bound.
mod pin {
    #[cfg(target_os = "linux")]
    pub(super) struct Pins {
        /// The calling thread's CPU set, and the CPU for each thread (the caller's first).
        allowed: Option<(libc::cpu_set_t, Vec<usize>)>,
    }

    #[cfg(target_os = "linux")]
    impl Pins {
        pub(super) fn new(threads: usize) -> Pins {
            // SAFETY: `cpu_set_t` is plain data, all zeros is the empty set, and the calls get
            // its size.
            let allowed = unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                (libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) == 0)
                    .then(|| {
                        let mine = usize::try_from(libc::sched_getcpu()).ok();
                        let mut cpus: Vec<usize> = (0..libc::CPU_SETSIZE as usize)
                            .filter(|&c| libc::CPU_ISSET(c, &set))
                            .collect();
                        if let Some(i) = cpus.iter().position(|&c| Some(c) == mine) {
                            cpus[..=i].rotate_right(1);
                        }
                        cpus.truncate(threads);
                        (set, cpus)
                    })
                    .filter(|(_, cpus)| threads > 1 && cpus.len() == threads)
            };
            Pins { allowed }
        }

        /// Binds the calling thread to thread `i`'s CPU.
        pub(super) fn pin(&self, i: usize) {
            let Some(&cpu) = self.allowed.as_ref().and_then(|(_, c)| c.get(i)) else {
                return;
            };
            // SAFETY: as in `new`; a failure leaves the thread where it was.
            unsafe {
                let mut one: libc::cpu_set_t = std::mem::zeroed();
                libc::CPU_SET(cpu, &mut one);
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &one);
            }
        }
    }

    /// Gives the calling thread (the one that made it) its CPU set back.
    #[cfg(target_os = "linux")]
    impl Drop for Pins {
        fn drop(&mut self) {
            if let Some((set, _)) = &self.allowed {
                // SAFETY: as in `new`.
                unsafe {
                    libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set);
                }
            }
        }
    }

    #[cfg(not(target_os = "linux"))]
    pub(super) struct Pins;

    #[cfg(not(target_os = "linux"))]
    impl Pins {
        pub(super) fn new(_threads: usize) -> Pins {
            Pins
        }
        pub(super) fn pin(&self, _i: usize) {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_each_hands_every_result_over_once_in_order() {
        for n in [0, 1, 63, 64, 65, 1000, 3001] {
            let items: Vec<usize> = (0..n).collect();
            let mut got = Vec::new();
            parallel_each(
                items,
                |at, i| {
                    assert_eq!(at, i, "each item comes with its index");
                    // Uneven work, so that blocks finish out of order.
                    if i % 97 == 0 {
                        std::thread::yield_now();
                    }
                    i * 2
                },
                |r| got.push(r),
            );
            assert_eq!(got, (0..n).map(|i| i * 2).collect::<Vec<_>>(), "{n} items");
        }
    }

    /// Each thread works on a CPU of its own, and the calling thread gets its CPU set back.
    #[cfg(target_os = "linux")]
    #[test]
    fn parallel_each_binds_each_thread_to_its_own_cpu() {
        fn mask() -> Vec<usize> {
            // SAFETY: plain data, sized by the call.
            unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                assert_eq!(
                    libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set),
                    0
                );
                (0..libc::CPU_SETSIZE as usize)
                    .filter(|&c| libc::CPU_ISSET(c, &set))
                    .collect()
            }
        }
        let before = mask();
        // Asked once per process: it reads the cgroup's CPU quota from /proc and /sys each time.
        static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
        let threads = *THREADS
            .get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(8)));
        let seen = std::sync::Mutex::new(std::collections::BTreeMap::new());
        parallel_each(
            (0..4000).collect::<Vec<usize>>(),
            |_, _| {
                let id = std::thread::current().id();
                seen.lock().unwrap().insert(format!("{id:?}"), mask());
            },
            |()| {},
        );
        assert_eq!(mask(), before, "the calling thread's CPU set is given back");
        let seen = seen.into_inner().unwrap();
        if threads >= 2 && before.len() >= threads {
            let cpus: std::collections::BTreeSet<Vec<usize>> = seen.values().cloned().collect();
            assert_eq!(cpus.len(), seen.len(), "one CPU each: {seen:?}");
            assert!(seen.values().all(|m| m.len() == 1), "{seen:?}");
        }
    }

    #[test]
    fn parallel_each_passes_a_panic_on() {
        let r = std::panic::catch_unwind(|| {
            parallel_each(
                (0..500).collect::<Vec<usize>>(),
                |_, i| assert_ne!(i, 300, "item 300"),
                |()| {},
            );
        });
        assert!(r.is_err());
    }
}
