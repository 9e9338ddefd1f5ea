#!/usr/bin/python3
"""Generates a synthetic search-session corpus with planted topics.

Each output line is one user session, as in Figure 1 of seed paper 000
(Ordentlich et al., CIKM'16): a time-ordered sequence of generalized
"words" -- whole search queries (words joined by underscores, e.g.
cheap_flights_paris), clicked search links (slc_<hex>) and clicked ads
(adid_<8 digits>).

How it is generated (pure stdlib, deterministic given --seed):
  * 12 topics (travel, cars, pets, cooking, running, finance, phones,
    gardening, fitness, home, gaming, weddings). Each topic's queries are
    built from its own head words and modifiers (~20-28 queries per topic);
    each topic has 10-20 ad ids and 8-12 search-link ids. The items and ids
    are fixed (they do not depend on --seed), so the example tokens below
    are always in the corpus.
  * Topic popularity and item popularity within a topic are Zipf-ish
    (weight 1/rank^0.8 over topics, 1/rank over items), so the first items
    of each list are the most frequent.
  * A session picks one topic and has 3-20 tokens (mean ~11): queries 60%,
    search-link clicks 20%, ad clicks 20%. Each token comes from another,
    random topic with probability --noise (default 0.07); 10% of sessions
    switch to a second topic half-way.
20000 sessions (the default) give about 200,000 tokens and ~570 distinct
tokens, which train in a few seconds.

Options:
  --out FILE        write the corpus there (required unless --examples,
                    --topics or --check)
  --sessions N      number of sessions (default 20000)
  --seed S          random seed of the sessions (default 1)
  --noise P         cross-topic noise probability (default 0.07)
  --examples        print a few good tokens to query for nearest neighbours
                    (a popular query and a popular ad from three topics),
                    space separated on one line, and exit
  --topics          print every topic with its most popular queries and ads
  --check VECTORS   read word2vec text-format vectors trained on this
                    corpus and report the fraction of each example token's
                    5 nearest neighbours that belong to the same topic; exits
                    1 if it is below --min-purity (default 0.8)

Good tokens to query (same topic expected among the neighbours):
  cheap_flights_paris, adid_<first travel ad>  -> travel
  used_toyota_dealer, adid_<first cars ad>     -> cars
  hoka_running_shoes                           -> running
(`--examples` prints the exact ad ids.)
"""
import argparse
import math
import random
import sys

# topic name -> (modifiers, heads, extra fixed queries)
TOPICS = [
    ("travel", ["cheap", "last_minute", "paris", "rome", "hawaii", "cancun"],
     ["flights", "hotels", "vacation_packages", "cruises"],
     ["cheap_flights_paris", "expedia", "kayak_flights", "tripadvisor_rome_hotels"]),
    ("cars", ["used", "new", "toyota", "honda", "ford", "cheap"],
     ["cars", "car_dealer", "suv_lease", "auto_parts"],
     ["used_toyota_dealer", "autozone_auto_parts", "auoto_zone", "gas_cap_replacement_for_car"]),
    ("pets", ["puppy", "cat", "dog", "kitten", "best", "cheap"],
     ["food", "toys", "grooming", "vet_near_me"],
     ["petsmart", "petco_coupons", "chewy_dog_food", "dog_adoption"]),
    ("cooking", ["easy", "vegan", "chicken", "pasta", "slow_cooker", "healthy"],
     ["recipes", "dinner_ideas", "soup", "casserole"],
     ["allrecipes", "food_network_recipes", "instant_pot_recipes", "cast_iron_skillet"]),
    ("running", ["hoka", "nike", "brooks", "asics", "trail", "marathon"],
     ["running_shoes", "shoe_reviews", "training_plan", "socks"],
     ["hoka_running_shoes", "hoka_shoes_for_bad_feet", "zappos_shoes", "couch_to_5k"]),
    ("finance", ["best", "low_interest", "online", "free", "student", "small_business"],
     ["credit_card", "mortgage_rates", "savings_account", "loans"],
     ["credit_score_check", "refinance_calculator", "chase_bank_login", "turbotax"]),
    ("phones", ["iphone", "samsung_galaxy", "pixel", "cheap", "unlocked", "refurbished"],
     ["phone", "phone_case", "screen_repair", "charger"],
     ["iphone_15_pro", "verizon_deals", "best_buy_phones", "tmobile_plans"]),
    ("gardening", ["tomato", "rose", "vegetable", "raised_bed", "organic", "indoor"],
     ["seeds", "garden_soil", "plants", "fertilizer"],
     ["home_depot_garden_center", "lowes_mulch", "when_to_plant_tomatoes", "lawn_mower"]),
    ("fitness", ["home", "planet", "beginner", "adjustable", "yoga", "crossfit"],
     ["gym", "workout", "dumbbells", "classes"],
     ["planet_fitness_hours", "peloton_bike", "protein_powder", "resistance_bands"]),
    ("home", ["kitchen", "bathroom", "cheap", "modern", "diy", "outdoor"],
     ["remodel", "furniture", "lighting", "flooring"],
     ["ikea_sofa", "wayfair_sale", "hardwood_floor_cost", "paint_colors"]),
    ("gaming", ["ps5", "xbox", "nintendo_switch", "pc", "best", "cheap"],
     ["games", "controller", "console_bundle", "headset"],
     ["steam_sale", "gamestop_trade_in", "minecraft_download", "fortnite_skins"]),
    ("weddings", ["beach", "rustic", "cheap", "summer", "lace", "vintage"],
     ["wedding_dresses", "wedding_venues", "wedding_invitations", "wedding_rings"],
     ["the_knot", "davids_bridal", "bridesmaid_dresses", "wedding_planner_near_me"]),
]

TOKEN_KINDS = (("query", 0.6), ("slc", 0.2), ("ad", 0.2))


def build_topics():
    """Fixed vocabulary: the same for every --seed."""
    rng = random.Random(20160101)
    used = set()
    topics = []
    for name, mods, heads, extra in TOPICS:
        combos = [f"{m}_{h}" for m in mods for h in heads]
        rng.shuffle(combos)
        n_queries = rng.randint(20, 28) - len(extra)
        queries = extra + combos[:n_queries]
        ads, slcs = [], []
        n_ads = rng.randint(10, 20)
        while len(ads) < n_ads:
            a = f"adid_{rng.randrange(10_000_000, 100_000_000)}"
            if a not in used:
                used.add(a)
                ads.append(a)
        n_slc = rng.randint(8, 12)
        while len(slcs) < n_slc:
            s = f"slc_{rng.getrandbits(32):08x}"
            if s not in used:
                used.add(s)
                slcs.append(s)
        topics.append({"name": name, "query": queries, "ad": ads, "slc": slcs})
    return topics


def zipf_weights(n, s=1.0):
    return [1.0 / (r + 1) ** s for r in range(n)]


def examples(topics):
    by_name = {t["name"]: t for t in topics}
    out = []
    for name, query in (("travel", "cheap_flights_paris"), ("cars", "used_toyota_dealer"),
                        ("running", "hoka_running_shoes")):
        out += [query, by_name[name]["ad"][0]]
    return out


def generate(topics, n_sessions, seed, noise, out):
    rng = random.Random(seed)
    topic_w = zipf_weights(len(topics), 0.8)
    kinds = [k for k, _ in TOKEN_KINDS]
    kind_w = [w for _, w in TOKEN_KINDS]
    item_w = {}
    for i, t in enumerate(topics):
        for k in kinds:
            item_w[i, k] = zipf_weights(len(t[k]))
    n_tokens = 0
    idx = list(range(len(topics)))
    for _ in range(n_sessions):
        length = min(20, 3 + int(rng.expovariate(1 / 8.5)))
        main = rng.choices(idx, topic_w)[0]
        second = rng.choices(idx, topic_w)[0] if rng.random() < 0.1 else main
        tokens = []
        for pos in range(length):
            t = main if pos < length // 2 else second
            if rng.random() < noise:
                t = rng.randrange(len(topics))
            k = rng.choices(kinds, kind_w)[0]
            tokens.append(rng.choices(topics[t][k], item_w[t, k])[0])
        out.write(" ".join(tokens) + "\n")
        n_tokens += len(tokens)
    return n_tokens


def check(topics, path, min_purity, k=5):
    topic_of = {}
    for i, t in enumerate(topics):
        for kind in ("query", "ad", "slc"):
            for w in t[kind]:
                topic_of[w] = i
    vecs = {}
    with open(path, encoding="utf-8") as f:
        header = f.readline().split()
        if len(header) != 2:
            sys.exit(f"gen-sessions.py: {path} is not word2vec text format")
        for line in f:
            parts = line.rstrip().split(" ")
            if parts[0] in topic_of:
                v = [float(x) for x in parts[1:]]
                norm = math.sqrt(sum(x * x for x in v)) or 1.0
                vecs[parts[0]] = [x / norm for x in v]
    total = hits = 0
    for q in examples(topics):
        if q not in vecs:
            sys.exit(f"gen-sessions.py: {q} is not in {path}")
        sims = sorted(((sum(a * b for a, b in zip(vecs[q], v)), w)
                       for w, v in vecs.items() if w != q), reverse=True)[:k]
        same = sum(topic_of[w] == topic_of[q] for _, w in sims)
        print(f"{q} ({topics[topic_of[q]]['name']}): " +
              " ".join(f"{w}/{topics[topic_of[w]]['name']}" for _, w in sims))
        hits += same
        total += k
    purity = hits / total
    print(f"topic purity of the {k} nearest neighbours: {purity:.3f}")
    if purity < min_purity:
        print(f"FAIL: purity {purity:.3f} is below {min_purity}", file=sys.stderr)
        sys.exit(1)


def main():
    ap = argparse.ArgumentParser(description="Synthetic search-session corpus with planted topics.")
    ap.add_argument("--out")
    ap.add_argument("--sessions", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--noise", type=float, default=0.07)
    ap.add_argument("--examples", action="store_true")
    ap.add_argument("--topics", action="store_true")
    ap.add_argument("--check", metavar="VECTORS")
    ap.add_argument("--min-purity", type=float, default=0.8)
    args = ap.parse_args()
    topics = build_topics()
    if args.examples:
        print(" ".join(examples(topics)))
        return
    if args.topics:
        for t in topics:
            print(f"{t['name']}: queries {' '.join(t['query'][:4])} ... ({len(t['query'])}); "
                  f"ads {' '.join(t['ad'][:3])} ... ({len(t['ad'])}); slc {len(t['slc'])}")
        return
    if args.check:
        check(topics, args.check, args.min_purity)
        return
    if not args.out:
        ap.error("--out FILE is required")
    if args.sessions < 1 or not 0 <= args.noise <= 1:
        ap.error("--sessions must be >= 1 and --noise in [0, 1]")
    with open(args.out, "w", encoding="utf-8") as out:
        n = generate(topics, args.sessions, args.seed, args.noise, out)
    print(f"wrote {args.sessions} sessions, {n} tokens to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
