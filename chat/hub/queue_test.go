package hub

import "testing"

func TestSendQueueIsBoundedAndHoldsNothingWhenEmpty(t *testing.T) {
	q := newSendQueue(3)
	for i := int64(1); i <= 3; i++ {
		if !q.push(outFrame{pos: i}) {
			t.Fatalf("push %d refused below the bound", i)
		}
	}
	if q.push(outFrame{pos: 4}) {
		t.Fatal("a full queue must refuse")
	}
	select {
	case <-q.ready:
	default:
		t.Fatal("waiting frames must signal the writer")
	}
	got := q.take()
	if len(got) != 3 || got[0].pos != 1 || got[2].pos != 3 {
		t.Fatalf("take: %+v", got)
	}
	if q.frames != nil || cap(q.frames) != 0 {
		t.Fatal("an emptied queue must hold no buffer")
	}
	if !q.push(outFrame{pos: 5}) {
		t.Fatal("room again after take")
	}
}
