//! Uniform experience replay that keeps each observation once and only its nonzero
//! entries: the replay of the lockstep DQN.
//!
//! A transition's `o_tm1` is usually the previous transition's `o_t`, and bsuite's largest
//! observations are mostly zeros (deep_sea's one-hot grid of up to 2,500 cells, MNIST's
//! digits, catch's board). Stored as frames of `(index, value)` pairs, a full replay of
//! deep_sea/20 takes about 160 KB instead of the 200 MB of two dense `f32` arrays.

use bsuite_envs::RandomState;

use crate::host::dispatch::prefetch;
use crate::host::sparse::Entry;

/// A queue in one contiguous buffer: pushed at the back, dropped from the front, compacted
/// now and then, so that any run of items is one slice.
struct Fifo<T> {
    items: Vec<T>,
    /// Items before `head` are dropped.
    head: usize,
}

impl<T: Copy> Fifo<T> {
    fn new() -> Self {
        Fifo {
            items: Vec::new(),
            head: 0,
        }
    }

    fn len(&self) -> usize {
        self.items.len() - self.head
    }

    fn drop_front(&mut self, n: usize) {
        self.head += n;
        debug_assert!(self.head <= self.items.len());
        // Moving the live part down once it is at most half the buffer keeps every item
        // moved O(1) times on average.
        if self.head >= 4096 && self.head * 2 >= self.items.len() {
            self.items.drain(..self.head);
            self.head = 0;
        }
    }

    fn get(&self, i: usize) -> T {
        self.items[self.head + i]
    }

    fn slice(&self, from: usize, len: usize) -> &[T] {
        &self.items[self.head + from..][..len]
    }
}

/// Observations in arrival order, each as its nonzero entries; the oldest are dropped
/// first.
struct Frames {
    entries: Fifo<Entry>,
    /// Position of the first live entry in the stream of all entries ever pushed.
    entries_base: u64,
    /// `(position of the first entry, number of entries)` of each live frame.
    frames: Fifo<(u64, u32)>,
    /// Id of the first live frame; ids count every frame ever pushed.
    frames_base: u64,
}

impl Frames {
    fn new() -> Self {
        Frames {
            entries: Fifo::new(),
            entries_base: 0,
            frames: Fifo::new(),
            frames_base: 0,
        }
    }

    /// The id the next pushed frame gets.
    fn next_id(&self) -> u64 {
        self.frames_base + self.frames.len() as u64
    }

    fn push(&mut self, observation: &[f32]) -> u64 {
        let start = self.entries_base + self.entries.len() as u64;
        let before = self.entries.items.len();
        for (k, &x) in observation.iter().enumerate() {
            if x != 0.0 {
                self.entries.items.push((k as u32, x));
            }
        }
        let len = (self.entries.items.len() - before) as u32;
        self.frames.items.push((start, len));
        self.next_id() - 1
    }

    /// True when frame `id` holds exactly the nonzero entries of `observation`.
    fn equals(&self, id: u64, observation: &[f32]) -> bool {
        let mut stored = self.get(id).iter();
        for (k, &x) in observation.iter().enumerate() {
            if x != 0.0 && stored.next() != Some(&(k as u32, x)) {
                return false;
            }
        }
        stored.next().is_none()
    }

    /// The entries of frame `id`.
    fn get(&self, id: u64) -> &[Entry] {
        let (start, len) = self.frames.get((id - self.frames_base) as usize);
        self.entries
            .slice((start - self.entries_base) as usize, len as usize)
    }

    /// Drops every frame older than `id`.
    fn drop_before(&mut self, id: u64) {
        let count = (id - self.frames_base) as usize;
        if count == 0 {
            return;
        }
        let entries: u64 = (0..count).map(|i| u64::from(self.frames.get(i).1)).sum();
        self.frames.drop_front(count);
        self.frames_base = id;
        self.entries.drop_front(entries as usize);
        self.entries_base += entries;
    }
}

/// A ring of `capacity` transitions `(o_tm1, a, r, d, o_t)` over shared sparse frames,
/// sampled uniformly with replacement with the agent's generator (as bsuite's
/// `baselines/utils/replay.py`, which stores dense copies).
pub(crate) struct SparseReplay {
    capacity: usize,
    num_added: usize,
    frames: Frames,
    frame_tm1: Vec<u64>,
    frame_t: Vec<u64>,
    actions: Vec<u32>,
    rewards: Vec<f32>,
    discounts: Vec<f32>,
    /// Fixed-width side data of each transition (an ensemble's masks and prior values).
    extra_width: usize,
    extras: Vec<f32>,
}

/// One sampled transition, its observations as their nonzero entries.
pub(crate) struct Sampled<'a> {
    pub(crate) o_tm1: &'a [Entry],
    pub(crate) action: usize,
    pub(crate) reward: f32,
    pub(crate) discount: f32,
    pub(crate) o_t: &'a [Entry],
    /// The transition's side data (empty without).
    pub(crate) extra: &'a [f32],
}

impl SparseReplay {
    /// A replay whose transitions also carry `extra_width` floats of side data (none for
    /// DQN; an ensemble's masks and prior values for bootstrapped DQN).
    pub(crate) fn new(capacity: usize, extra_width: usize) -> Self {
        assert!(capacity > 0, "replay capacity must be positive");
        SparseReplay {
            capacity,
            num_added: 0,
            frames: Frames::new(),
            frame_tm1: Vec::new(),
            frame_t: Vec::new(),
            actions: Vec::new(),
            rewards: Vec::new(),
            discounts: Vec::new(),
            extra_width,
            extras: Vec::new(),
        }
    }

    /// Transitions held: `min(capacity, added)`.
    pub(crate) fn size(&self) -> usize {
        self.num_added.min(self.capacity)
    }

    /// The id of a frame equal to `observation` if it is the newest one, else of a new one.
    fn frame_of(&mut self, observation: &[f32]) -> u64 {
        let next = self.frames.next_id();
        if next > self.frames.frames_base && self.frames.equals(next - 1, observation) {
            next - 1
        } else {
            self.frames.push(observation)
        }
    }

    /// Writes at `added % capacity`, over the oldest transition once full.
    pub(crate) fn add(
        &mut self,
        o_tm1: &[f32],
        action: usize,
        reward: f32,
        discount: f32,
        o_t: &[f32],
    ) {
        self.add_with_extra(o_tm1, action, reward, discount, o_t, &[]);
    }

    /// [`SparseReplay::add`] with the transition's side data (`extra_width` floats).
    pub(crate) fn add_with_extra(
        &mut self,
        o_tm1: &[f32],
        action: usize,
        reward: f32,
        discount: f32,
        o_t: &[f32],
        extra: &[f32],
    ) {
        assert_eq!(
            extra.len(),
            self.extra_width,
            "replay side data of the wrong width"
        );
        let tm1 = self.frame_of(o_tm1);
        let t = self.frame_of(o_t);
        let slot = self.num_added % self.capacity;
        if slot == self.actions.len() {
            self.frame_tm1.push(tm1);
            self.frame_t.push(t);
            self.actions.push(action as u32);
            self.rewards.push(reward);
            self.discounts.push(discount);
            self.extras.extend_from_slice(extra);
        } else {
            self.frame_tm1[slot] = tm1;
            self.frame_t[slot] = t;
            self.actions[slot] = action as u32;
            self.rewards[slot] = reward;
            self.discounts[slot] = discount;
            self.extras[slot * self.extra_width..][..self.extra_width].copy_from_slice(extra);
        }
        self.num_added += 1;
        if self.num_added >= self.capacity {
            // Frames are referenced in arrival order, so the oldest live transition's
            // `o_tm1` is the oldest frame still needed.
            let oldest = self.frame_tm1[self.num_added % self.capacity];
            self.frames.drop_before(oldest);
        }
    }

    /// Draws `batch_size` slots uniformly with replacement (`randint(size)` each, in order).
    pub(crate) fn sample_indices(
        &self,
        rng: &mut RandomState,
        indices: &mut Vec<usize>,
        batch_size: usize,
    ) {
        let size = self.size();
        indices.clear();
        indices.extend((0..batch_size).map(|_| rng.randint(size)));
    }

    /// Asks the CPU to fetch what [`SparseReplay::get`] reads for `slots`, in `stage`
    /// 0, 1 and 2 of its chain of loads (the slot's fields, its frames' spans, their
    /// entries): run each stage over every sampled slot of a batch before the next, so
    /// that the cache misses of random sampling overlap instead of queuing. A hint only:
    /// results are the same without it.
    pub(crate) fn prefetch(&self, slots: &[usize], stage: usize) {
        for &slot in slots {
            match stage {
                0 => {
                    prefetch(&self.frame_tm1[slot], true);
                    prefetch(&self.frame_t[slot], true);
                    prefetch(&self.actions[slot], true);
                    prefetch(&self.rewards[slot], true);
                    prefetch(&self.discounts[slot], true);
                    // Every line of the side data: an ensemble reads all of it.
                    let extra = &self.extras[slot * self.extra_width..][..self.extra_width];
                    for line in extra.chunks(16) {
                        prefetch(&line[0], true);
                    }
                }
                1 => {
                    for id in [self.frame_tm1[slot], self.frame_t[slot]] {
                        let i = (id - self.frames.frames_base) as usize;
                        prefetch(&self.frames.frames.items[self.frames.frames.head + i], true);
                    }
                }
                _ => {
                    for id in [self.frame_tm1[slot], self.frame_t[slot]] {
                        if let Some(first) = self.frames.get(id).first() {
                            prefetch(first, true);
                        }
                    }
                }
            }
        }
    }

    /// The transition in `slot`.
    pub(crate) fn get(&self, slot: usize) -> Sampled<'_> {
        Sampled {
            o_tm1: self.frames.get(self.frame_tm1[slot]),
            action: self.actions[slot] as usize,
            reward: self.rewards[slot],
            discount: self.discounts[slot],
            o_t: self.frames.get(self.frame_t[slot]),
            extra: &self.extras[slot * self.extra_width..][..self.extra_width],
        }
    }

    /// Entries held, for tests.
    #[cfg(test)]
    fn entries_held(&self) -> usize {
        self.frames.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dense(entries: &[Entry], len: usize) -> Vec<f32> {
        let mut out = vec![0.0; len];
        for &(k, x) in entries {
            out[k as usize] = x;
        }
        out
    }

    #[test]
    fn ring_keeps_the_newest_transitions_and_shares_frames() {
        let mut replay = SparseReplay::new(3, 0);
        let obs = |i: usize| {
            let mut o = vec![0.0f32; 5];
            o[i % 5] = i as f32 + 1.0;
            o
        };
        for i in 0..7 {
            replay.add(&obs(i), i, i as f32, 1.0, &obs(i + 1));
        }
        assert_eq!(replay.size(), 3);
        // Slots hold transitions 6, 4, 5; consecutive transitions share a frame, so four
        // frames of one entry each are live.
        for (slot, i) in [(0, 6), (1, 4), (2, 5)] {
            let t = replay.get(slot);
            assert_eq!(t.action, i);
            assert_eq!(t.reward, i as f32);
            assert_eq!(dense(t.o_tm1, 5), obs(i));
            assert_eq!(dense(t.o_t, 5), obs(i + 1));
        }
        assert_eq!(replay.entries_held(), 4);

        // A new episode: o_tm1 differs from the last o_t, so it gets its own frame.
        replay.add(&obs(0), 9, 0.0, 0.0, &obs(0));
        let t = replay.get(1);
        assert_eq!((dense(t.o_tm1, 5), dense(t.o_t, 5)), (obs(0), obs(0)));
        assert_eq!(replay.entries_held(), 4);
    }

    #[test]
    fn frames_read_back_whole_across_compactions() {
        let mut replay = SparseReplay::new(4, 0);
        let mut rng = RandomState::new(1);
        let mut history = Vec::new();
        for i in 0..5000 {
            let o: Vec<f32> = (0..9)
                .map(|_| {
                    if rng.rand() < 0.5 {
                        0.0
                    } else {
                        rng.randn() as f32
                    }
                })
                .collect();
            let o_t: Vec<f32> = (0..9).map(|k| if k == i % 9 { 1.0 } else { 0.0 }).collect();
            replay.add(&o, i, 0.0, 1.0, &o_t);
            history.push((o, o_t));
            for slot in 0..replay.size() {
                let t = replay.get(slot);
                let (o, o_t) = &history[t.action];
                assert_eq!(&dense(t.o_tm1, 9), o);
                assert_eq!(&dense(t.o_t, 9), o_t);
            }
        }
        let mut indices = Vec::new();
        replay.sample_indices(&mut rng, &mut indices, 32);
        assert!(indices.len() == 32 && indices.iter().all(|&i| i < 4));
    }
}
