use std::cell::Cell;
use std::rc::Rc;

use serde_json::json;

use super::*;

/// The value of a future that is already resolved (the peer needs no executor).
pub(super) fn ready<T>(fut: impl Future<Output = T>) -> T {
    match pin!(fut).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(v) => v,
        Poll::Pending => panic!("not resolved"),
    }
}
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

#[test]
fn outgoing_ids_count_up_and_answers_reach_their_waiter() {
    let mut out: Outgoing<&str, u32> = Outgoing::default();
    let (a, wa) = out.begin("first");
    let (b, _wb) = out.begin("second");
    assert_eq!((a, b), (1, 2));
    assert_eq!(out.len(), 2);
    let sent = out.take_answered(&RequestId::Number(a), |_| true).unwrap();
    assert_eq!(sent.data, "first");
    sent.answer(7);
    assert_eq!(ready(wa), 7);
    assert!(
        out.take_answered(&RequestId::Number(a), |_| true).is_none(),
        "an id is answered once"
    );
    assert!(out
        .take_answered(&RequestId::String("2".into()), |_| true)
        .is_none());
    assert!(
        out.take_answered(&RequestId::Number(b), |d| *d != "second")
            .is_none(),
        "refused by the caller's check, it stays"
    );
    assert_eq!(out.forget(b), Some("second"));
    assert!(out.is_empty());
    let (c, _) = out.begin("third");
    assert_eq!(c, 3, "ids are never reused");
}

#[test]
fn take_where_takes_in_id_order() {
    let mut out: Outgoing<u32, ()> = Outgoing::default();
    for n in [5, 6, 7, 8] {
        out.begin(n);
    }
    let even: Vec<u32> = out
        .take_where(|n| n % 2 == 0)
        .into_iter()
        .map(|s| s.data)
        .collect();
    assert_eq!(even, vec![6, 8]);
    assert_eq!(
        out.iter().map(|(id, n)| (id, *n)).collect::<Vec<_>>(),
        vec![(1, 5), (3, 7)]
    );
}

#[test]
fn an_answer_dropped_unresolved_abandons_and_a_resolved_one_does_not() {
    let abandoned = Rc::new(Cell::new(0));
    let mut out: Outgoing<(), u32> = Outgoing::default();
    let (_, w) = out.begin(());
    let seen = abandoned.clone();
    drop(Answer::new(w, move || seen.set(seen.get() + 1)));
    assert_eq!(abandoned.get(), 1);

    let (id, w) = out.begin(());
    let seen = abandoned.clone();
    let answer = Answer::new(w, move || seen.set(seen.get() + 1));
    out.take_answered(&RequestId::Number(id), |_| true)
        .unwrap()
        .answer(3);
    assert_eq!(ready(answer), 3);
    assert_eq!(abandoned.get(), 1, "a resolved answer abandons nothing");
}

#[test]
fn in_flight_frees_an_id_only_for_its_own_request() {
    let mut in_flight = InFlight::default();
    let id = RequestId::Number(1);
    let first = CancellationToken::new();
    in_flight.start(id.clone(), first.clone());
    assert!(in_flight.contains(&id));
    let cancelled = in_flight.cancel(&id).unwrap();
    assert!(cancelled.same(&first));
    let second = CancellationToken::new();
    in_flight.start(id.clone(), second.clone());
    assert!(
        !in_flight.finish(&id, &first),
        "the cancelled request's end leaves the reuse alone"
    );
    assert!(in_flight.contains(&id));
    assert!(in_flight.finish(&id, &second));
    assert!(in_flight.is_empty());
}

#[test]
fn cancelled_notifications_round_trip() {
    let n = cancelled(&RequestId::String("a".into()), "gone");
    assert_eq!(n["method"], "notifications/cancelled");
    assert_eq!(
        read_cancelled(n.get("params")),
        Some((RequestId::String("a".into()), Some("gone".into())))
    );
    assert_eq!(
        read_cancelled(Some(&json!({ "requestId": 4 }))),
        Some((RequestId::Number(4), None))
    );
    assert_eq!(read_cancelled(Some(&json!({ "requestId": true }))), None);
    assert_eq!(read_cancelled(None), None);
}
