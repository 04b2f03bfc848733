/* The skifch model's pure parts, against values worked out by hand in the comments. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "skifch_model.h"

/* A 16 KiB ring of four 4 KiB pages. 11776 B (11.5 KiB) from 0 fill pages 0 and 1 and 3584 B
 * of page 2: three pieces. Freed, the tail is at 11776; 6144 B there take the last 512 B of page
 * 2, all of page 3 and wrap to the first 1536 B of page 0: three pieces at the ring's end. */
Test(skifch_ring, three_pieces_at_the_ring_end)
{
  struct skifch_ring r = {.size = 16384, .page = 4096};
  struct skifch_piece pc[SKIFCH_MAX_PIECES];
  cr_assert_eq(skifch_ring_place(&r, 11776, pc), 3);
  cr_assert(pc[0].page == 0 && pc[0].offset == 0 && pc[0].len == 4096);
  cr_assert(pc[1].page == 1 && pc[1].len == 4096);
  cr_assert(pc[2].page == 2 && pc[2].offset == 0 && pc[2].len == 3584);
  skifch_ring_release(&r, 11776);
  cr_assert_eq(r.used, 0);
  cr_assert_eq(skifch_ring_place(&r, 6144, pc), 3);
  cr_assert(pc[0].page == 2 && pc[0].offset == 3584 && pc[0].len == 512);
  cr_assert(pc[1].page == 3 && pc[1].offset == 0 && pc[1].len == 4096);
  cr_assert(pc[2].page == 0 && pc[2].offset == 0 && pc[2].len == 1536);
  cr_assert_eq(r.used, 6144);
  /* a message inside one page is one piece */
  cr_assert_eq(skifch_ring_place(&r, 100, pc), 1);
  cr_assert(pc[0].page == 0 && pc[0].offset == 1536 && pc[0].len == 100);
}

/* Credits: a 1000 B ring; 600 B sent leave 400; 600 B freed at t = 1 s with 0.5 s of credit
 * latency are still unseen at 1.2 s and seen from 1.5 s. */
Test(skifch_credits, freed_space_arrives_one_latency_later)
{
  struct skifch_credits c;
  skifch_credits_init(&c, 1000);
  cr_assert_eq(skifch_credits_available(&c, 0), 1000);
  skifch_credits_take(&c, 600);
  cr_assert_eq(skifch_credits_available(&c, 0.5), 400);
  skifch_credits_return(&c, 600, 1.0, 0.5);
  cr_assert_eq(skifch_credits_available(&c, 1.2), 400);
  cr_assert_eq(skifch_credits_available(&c, 1.5), 1000);
  skifch_credits_take(&c, 1000);
  cr_assert_eq(skifch_credits_available(&c, 2), 0);
  skifch_credits_free(&c);
}

/* The size one Send makes: whole, cut to the largest message, cut to the credits, or refused. */
Test(skifch_send, size_is_decided_by_the_network_state)
{
  cr_assert_eq(skifch_send_size(100, 8192, 65536, 8), 100);
  cr_assert_eq(skifch_send_size(10000, 8192, 65536, 8), 8192);
  cr_assert_eq(skifch_send_size(10000, 8192, 3000, 8), 3000); /* prefix under a nearly full receiver */
  cr_assert_eq(skifch_send_size(10000, 8192, 0, 8), 0);       /* full receiver: refused */
  cr_assert_eq(skifch_send_size(10000, 8192, 65536, 0), 0);   /* every adapter slot in flight: refused */
}

/* MPI's unexpected queue: arrivals (0,5), (1,5), (0,6); taking (0,6) examines 3 entries, then
 * (1,5) is second of the two left; a receive that matches nothing searches the whole queue. */
Test(skifch_match, entries_examined_grow_with_the_queue)
{
  struct skifch_match_queue q = {0};
  skifch_match_push(&q, 0, 5);
  skifch_match_push(&q, 1, 5);
  skifch_match_push(&q, 0, 6);
  cr_assert_eq(skifch_match_take(&q, 0, 6), 3);
  cr_assert_eq(skifch_match_take(&q, 1, 5), 2);
  cr_assert_eq(skifch_match_take(&q, 2, 1), 1);
  cr_assert_eq(skifch_match_take(&q, 0, 5), 1);
  cr_assert_eq(q.n, 0);
  free(q.e);
}

Test(skifch_model, pieces_of_an_mpi_message)
{
  struct skifch_params p = {.max_message_B = 8192};
  cr_assert_eq(skifch_pieces(&p, 0), 1);
  cr_assert_eq(skifch_pieces(&p, 8192), 1);
  cr_assert_eq(skifch_pieces(&p, 8193), 2);
  cr_assert_eq(skifch_pieces(&p, 65536), 8);
}
