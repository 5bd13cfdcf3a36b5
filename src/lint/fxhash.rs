//! A fast hasher for lint's indexes of paths (thousands of files are looked up once or twice
//! each). The keys are the paths a user names or that discovery finds under the bases, not
//! text an attacker supplies at scale, so the hash need not resist collisions made on purpose
//! (std's SipHash does, at several times the cost for short keys).

use std::hash::{BuildHasherDefault, Hasher};

/// The multiply-rotate hash of `rustc`'s `FxHasher`, a word at a time.
#[derive(Default, Clone, Copy)]
pub(in crate::lint) struct Fx(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Fx {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            // The length tells "a" from "a\0".
            self.add(u64::from_le_bytes(w) ^ ((rest.len() as u64) << 56));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A `HashMap` with [`Fx`].
pub(in crate::lint) type FxMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<Fx>>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, Hash};
    use std::path::PathBuf;

    fn hash(v: impl Hash) -> u64 {
        BuildHasherDefault::<Fx>::default().hash_one(v)
    }

    #[test]
    fn distinct_paths_hash_apart_and_maps_find_them() {
        let paths: Vec<PathBuf> = (0..2000)
            .map(|i| PathBuf::from(format!("/r/p{i}/.cursor/mcp.json")))
            .collect();
        let hashes: std::collections::HashSet<u64> = paths.iter().map(hash).collect();
        assert_eq!(hashes.len(), paths.len());
        assert_ne!(hash("a"), hash("a\0"));
        let mut m: FxMap<PathBuf, usize> = FxMap::default();
        for (i, p) in paths.iter().enumerate() {
            m.insert(p.clone(), i);
        }
        for (i, p) in paths.iter().enumerate() {
            assert_eq!(m.get(p), Some(&i));
        }
        assert_eq!(m.get(&PathBuf::from("/r/p2000/.cursor/mcp.json")), None);
    }
}
