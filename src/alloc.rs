//! Budget allocation: the integer max-min water-fill that shares a batch budget across its slots.
//!
//! Every slot whose length fits under the current fair share keeps its whole length and gives the rest of its
//! share back; the slots still wanting more split what remains evenly, and the indivisible leftover goes one unit
//! at a time to them in slot order. The result sums to exactly the budget whenever the slots do not all fit.

/// Max-min fair allocation of `budget` UTF-16 units over slots of the given `lengths`, with equal weights.
///
/// Returns one allocation per slot, in slot order. When the lengths sum to at most `budget` every slot keeps its
/// length. Otherwise the allocations sum to exactly `budget`, no slot gets more than its length, and a slot that
/// is cut gets at least as much as any other cut slot, less the one unit of leftover that goes to earlier slots.
pub fn water_fill(lengths: &[u64], budget: u64) -> Vec<u64> {
    weighted_water_fill(lengths, None, budget)
}

/// Max-min fair allocation with per-slot weights: the fair share of a slot is proportional to its weight.
///
/// With `weights = None` (or all weights equal to 1) this is exactly [`water_fill`]: in each round the share is
/// `floor(remaining / active)`, slots no longer than their share leave with their whole length, and when none is
/// that short every active slot gets its share and the leftover `remaining - share * active` is handed out one
/// unit at a time to the active slots in slot order. With weights, a slot's share is
/// `floor(remaining * weight / active_weight)` and the leftover is handed out the same way.
pub fn weighted_water_fill(lengths: &[u64], weights: Option<&[u64]>, budget: u64) -> Vec<u64> {
    let n = lengths.len();
    let weight = |i: usize| weights.map_or(1u64, |w| w[i].max(1));
    let total: u128 = lengths.iter().map(|&l| u128::from(l)).sum();
    if total <= u128::from(budget) {
        return lengths.to_vec();
    }
    // Slots leave the active set in order of length per unit of weight; the rounds of the iterative definition
    // remove a prefix of this order each time, and its shares never decrease, so one sorted sweep is equivalent.
    // Ties are broken by index, so the order is total and an unstable (in-place, allocation-free) sort gives it.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_unstable_by(|&a, &b| {
        (u128::from(lengths[a]) * u128::from(weight(b)))
            .cmp(&(u128::from(lengths[b]) * u128::from(weight(a))))
            .then(a.cmp(&b))
    });
    let mut allocation = vec![0u64; n];
    let mut active = vec![true; n];
    let mut remaining = u128::from(budget);
    let mut active_weight: u128 = (0..n).map(|i| u128::from(weight(i))).sum();
    for &i in &order {
        let share = remaining * u128::from(weight(i)) / active_weight;
        if u128::from(lengths[i]) > share {
            break;
        }
        allocation[i] = lengths[i];
        active[i] = false;
        remaining -= u128::from(lengths[i]);
        active_weight -= u128::from(weight(i));
    }
    // Every slot still active gets its share; the leftover goes one unit at a time in slot order.
    let mut handed = 0u128;
    for i in (0..n).filter(|&i| active[i]) {
        let share = remaining * u128::from(weight(i)) / active_weight;
        allocation[i] = share as u64;
        handed += share;
    }
    let mut leftover = remaining - handed;
    for i in (0..n).filter(|&i| active[i]) {
        if leftover == 0 {
            break;
        }
        allocation[i] += 1;
        leftover -= 1;
    }
    allocation
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The iterative definition, round by round, as the design states it.
    fn iterative(lengths: &[u64], budget: u64) -> Vec<u64> {
        let total: u64 = lengths.iter().sum();
        if total <= budget {
            return lengths.to_vec();
        }
        let mut allocation = vec![0u64; lengths.len()];
        let mut active: Vec<usize> = (0..lengths.len()).collect();
        let mut remaining = budget;
        loop {
            let share = remaining / active.len() as u64;
            let (small, big): (Vec<usize>, Vec<usize>) =
                active.iter().partition(|&&i| lengths[i] <= share);
            if small.is_empty() {
                for &i in &active {
                    allocation[i] = share;
                }
                let leftover = remaining - share * active.len() as u64;
                for &i in active.iter().take(leftover as usize) {
                    allocation[i] += 1;
                }
                return allocation;
            }
            for &i in &small {
                allocation[i] = lengths[i];
                remaining -= lengths[i];
            }
            active = big;
        }
    }

    #[test]
    fn fitting_slots_keep_their_length() {
        assert_eq!(water_fill(&[3, 4, 5], 12), vec![3, 4, 5]);
        assert_eq!(water_fill(&[3, 4, 5], 100), vec![3, 4, 5]);
        assert_eq!(water_fill(&[], 0), Vec::<u64>::new());
    }

    #[test]
    fn small_slots_keep_everything_and_large_share_the_rest() {
        // share 100/3 = 33: the 10 leaves; 90/2 = 45 for the two large slots.
        assert_eq!(water_fill(&[1000, 10, 1000], 100), vec![45, 10, 45]);
    }

    #[test]
    fn remainder_goes_one_unit_at_a_time_in_slot_order() {
        assert_eq!(water_fill(&[1000, 1000, 1000], 1001), vec![334, 334, 333]);
        assert_eq!(water_fill(&[1000, 1000, 1000], 1000), vec![334, 333, 333]);
        assert_eq!(water_fill(&[1000, 1000, 1000], 100), vec![34, 33, 33]);
        assert_eq!(water_fill(&[5, 1000, 1000, 1000], 12), vec![3, 3, 3, 3]);
        assert_eq!(water_fill(&[5, 1000, 1000, 1000], 14), vec![4, 4, 3, 3]);
    }

    #[test]
    fn later_rounds_release_more_slots() {
        // Round 1: share 40 frees 10; round 2: share 50 frees 45; round 3: share 52 (105/2, leftover 1).
        assert_eq!(water_fill(&[10, 45, 500, 500], 160), vec![10, 45, 53, 52]);
        assert_eq!(iterative(&[10, 45, 500, 500], 160), vec![10, 45, 53, 52]);
    }

    #[test]
    fn zero_budget_gives_nothing() {
        assert_eq!(water_fill(&[5, 0, 7], 0), vec![0, 0, 0]);
    }

    #[test]
    fn weights_scale_the_share() {
        assert_eq!(
            weighted_water_fill(&[1000, 1000], Some(&[3, 1]), 100),
            vec![75, 25]
        );
        assert_eq!(
            weighted_water_fill(&[10, 1000], Some(&[3, 1]), 100),
            vec![10, 90]
        );
        assert_eq!(
            weighted_water_fill(&[1000, 1000, 1000], Some(&[1, 1, 1]), 1001),
            vec![334, 334, 333]
        );
    }

    proptest! {
        #[test]
        fn sorted_sweep_equals_the_iterative_definition(
            lengths in proptest::collection::vec(0u64..5_000, 0..40),
            budget in 0u64..60_000,
        ) {
            prop_assert_eq!(water_fill(&lengths, budget), iterative(&lengths, budget));
        }

        #[test]
        fn allocation_is_bounded_and_exact(
            lengths in proptest::collection::vec(0u64..100_000, 1..40),
            budget in 0u64..500_000,
        ) {
            let a = water_fill(&lengths, budget);
            let total: u64 = lengths.iter().sum();
            prop_assert!(a.iter().zip(&lengths).all(|(x, l)| x <= l));
            prop_assert_eq!(a.iter().sum::<u64>(), total.min(budget));
        }
    }

    #[test]
    fn a_slot_exactly_as_long_as_its_share_leaves_whole_and_the_leftover_goes_on() {
        // 11 over two slots: a share of 5, which the first slot (5 units) fits exactly. It leaves with its 5 and
        // the second slot gets the remaining 6; kept active instead, the first would get 5 plus the one unit of
        // leftover, more than its length.
        assert_eq!(water_fill(&[5, 100], 11), [5, 6]);
        assert_eq!(weighted_water_fill(&[5, 100], Some(&[1, 1]), 11), [5, 6]);
        // Weighted 1:2, 13 units: the first slot's share is 13 * 1 / 3 = 4, exactly its length, and the second
        // slot gets the other 9 (kept active, the first would get 4 plus the unit of leftover).
        assert_eq!(weighted_water_fill(&[4, 100], Some(&[1, 2]), 13), [4, 9]);
    }
}
