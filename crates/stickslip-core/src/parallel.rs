//! Parallel loops over the chunks of an output in which the calling thread does a share.
//!
//! rayon's `join` and parallel iterators called from outside the pool hand all of the work to
//! the pool's threads and leave the caller waiting; the solver calls them from its own thread
//! between single-threaded factorisations, through which the pool's threads sleep. On this
//! project's 2-core virtual machines a worker woken that way took about 2 ms to start, longer
//! than the loops themselves (docs/benchmarks.md, "Waking the pool"). Here the caller takes the
//! first share at once and hands the others to the pool (`rayon::in_place_scope`), so a loop
//! never takes longer than the caller's share plus whatever the pool has not taken up.

/// Calls `f(i, chunk)` for every `chunk`-long chunk `i` of `out` (the last may be shorter),
/// the chunks split into one run of consecutive chunks per thread of the pool, each run at least
/// `min_chunks` long: the first run on the calling thread, the others on the pool. Each chunk
/// is written by one call, so the result does not depend on how the runs are spread.
pub fn for_each_chunk<T: Send>(
    out: &mut [T],
    chunk: usize,
    min_chunks: usize,
    f: impl Fn(usize, &mut [T]) + Sync,
) {
    assert!(chunk > 0, "chunks of at least one item");
    let chunks = out.len().div_ceil(chunk);
    let per_run = chunks
        .div_ceil(rayon::current_num_threads().max(1))
        .max(min_chunks.max(1));
    let run = |first: usize, items: &mut [T]| {
        for (i, c) in items.chunks_mut(chunk).enumerate() {
            f(first + i, c);
        }
    };
    if per_run >= chunks {
        run(0, out);
        return;
    }
    let run = &run;
    rayon::in_place_scope(|scope| {
        let mut runs = out.chunks_mut(per_run * chunk).enumerate();
        let own = runs.next();
        for (r, items) in runs {
            scope.spawn(move |_| run(r * per_run, items));
        }
        if let Some((_, items)) = own {
            run(0, items);
        }
    });
}

/// Σ `part(range)` over `0..n` cut into consecutive ranges of `chunk` (the last may be
/// shorter), the parts made in parallel ([`for_each_chunk`]) and added in order: the same sum,
/// bit for bit, whatever the threads. The partial sums live on the stack up to 128 parts.
pub fn chunked_sum(
    n: usize,
    chunk: usize,
    part: impl Fn(std::ops::Range<usize>) -> f64 + Sync,
) -> f64 {
    assert!(chunk > 0, "chunks of at least one item");
    let parts = n.div_ceil(chunk);
    let mut stack = [0.0f64; 128];
    let mut heap = Vec::new();
    let partials = if parts <= stack.len() {
        &mut stack[..parts]
    } else {
        heap.resize(parts, 0.0);
        &mut heap[..]
    };
    for_each_chunk(partials, 1, 1, |c, p| {
        p[0] = part(c * chunk..((c + 1) * chunk).min(n))
    });
    partials.iter().sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every chunk is visited once, with its own index, whatever the run length; short last
    /// chunks and outputs shorter than one run included.
    #[test]
    fn every_chunk_is_written_once_with_its_index() {
        for (len, chunk, min_chunks) in [
            (0, 3, 1),
            (1, 3, 1),
            (10, 3, 1),
            (1000, 7, 1),
            (1000, 7, 64),
            (999, 1, 2),
        ] {
            let mut out = vec![(usize::MAX, 0u32); len];
            for_each_chunk(&mut out, chunk, min_chunks, |i, c| {
                for x in c.iter_mut() {
                    *x = (i, x.1 + 1);
                }
            });
            for (k, x) in out.iter().enumerate() {
                assert_eq!(*x, (k / chunk, 1), "len {len} chunk {chunk} item {k}");
            }
        }
    }

    /// The chunks' partial sums added in order: equal, bit for bit, to the same partial sums
    /// added one after the other; on the stack (under 128 parts) and beyond it.
    #[test]
    fn a_chunked_sum_adds_the_parts_in_order() {
        let term = |i: usize| {
            1.0 / (1.0 + i as f64).powi(3) * if i.is_multiple_of(3) { -1.0 } else { 1.0 }
        };
        for (n, chunk) in [(0usize, 4usize), (1, 4), (1000, 7), (100_000, 64)] {
            let part = |r: std::ops::Range<usize>| r.map(term).sum::<f64>();
            let expected: f64 = (0..n.div_ceil(chunk))
                .map(|c| part(c * chunk..((c + 1) * chunk).min(n)))
                .sum();
            assert_eq!(
                chunked_sum(n, chunk, part).to_bits(),
                expected.to_bits(),
                "n {n}"
            );
        }
    }
}
