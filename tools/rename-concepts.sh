#!/usr/bin/env bash
# Renames files and exported names so that a file's name says its concept
# and every name it exports carries its prefix (docs/architecture.md,
# "Names"). Deterministic and re-runnable: run it on any later tree (after
# other branches are merged) and it moves what is still at an old place and
# renames what still has an old name; on a tree already renamed it changes
# nothing. It prints every move and every file it edits.
#
#   tools/rename-concepts.sh            rename
#   tools/rename-concepts.sh --dry-run  print what it would change, change nothing
#
# After branches that changed the same files: merge them, run this script
# and commit its result, then merge the branch that first ran it with
# -X ours (where a line differs, the one just renamed on the merged content
# wins), resolve what git still asks about, and run it again: it must say
# "nothing to do".
#
# It stops (exit 1) before changing anything when a file's new place holds a
# file with other content than the old one, or when a new name is already
# taken by something other than the renamed definition. An exact name is
# renamed only while its home file (the one that must define it) has it,
# under the old name or already under the new one (then the old name's
# remaining uses, say from a branch merged later, join it), and
# mod_travel/lifecycle/ does not declare it at top level: a name that moved
# elsewhere is left alone with a warning, never guessed at. Continuation
# lines aligned under a renamed call's parenthesis move with it. Files under mod_travel/lifecycle/, webhook/
# and sandbox/ are never moved; their text is edited only where it uses a
# renamed name or path, so the tree keeps building.
#
# The table. Kinds:
#   file    OLD-PATH  NEW-PATH   git mv; #include paths, paths in docs and
#                                comments (with or without mod_travel/),
#                                the bare name inside the same folder, and a
#                                header's include guard follow
#   prefix  OLD       NEW        every identifier that starts with OLD
#                                (a prefix owned by one file) starts with NEW
#   name    OLD       NEW  HOME  one identifier, as a whole word; HOME is the
#                                file that defines it (new path; the old one
#                                is also looked at; several: a,b), "-" for
#                                none
# ---- table: begin ----
read -r -d '' TABLE <<'EOF' || true
file   mod_travel/hotel/bstore.c                 mod_travel/hotel/booking_store.c
file   mod_travel/hotel/bstore.h                 mod_travel/hotel/booking_store.h
file   mod_travel/hotel/list_query.c             mod_travel/hotel/booking_query.c
file   mod_travel/hotel/cstore.c                 mod_travel/hotel/cancellation_store.c
file   mod_travel/hotel/cstore.h                 mod_travel/hotel/cancellation_store.h
file   mod_travel/hotel/store.c                  mod_travel/hotel/hotel_store.c
file   mod_travel/hotel/store.h                  mod_travel/hotel/hotel_store.h
file   mod_travel/hotel/bapi.c                   mod_travel/hotel/reply.c
file   mod_travel/hotel/bapi.h                   mod_travel/hotel/reply.h
file   mod_travel/hotel/supplier_wire.c          mod_travel/hotel/suppliers/wire.c
file   mod_travel/hotel/supplier_a.c             mod_travel/hotel/suppliers/supplier_a.c
file   mod_travel/hotel/supplier_b.c             mod_travel/hotel/suppliers/supplier_b.c
file   mod_travel/hotel/supplier_c.c             mod_travel/hotel/suppliers/supplier_c.c
file   mod_travel/hotel/supplier_duffel_stays.c  mod_travel/hotel/suppliers/supplier_duffel_stays.c
file   mod_travel/flight/store.c                 mod_travel/flight/booking_store.c
file   mod_travel/flight/store.h                 mod_travel/flight/booking_store.h
file   mod_travel/flight/list_query.c            mod_travel/flight/booking_query.c
file   mod_travel/flight/api_util.c              mod_travel/flight/reply.c
file   mod_travel/flight/supplier.c              mod_travel/flight/suppliers/wire.c
file   mod_travel/flight/supplier_wire.h         mod_travel/flight/suppliers/wire.h
file   mod_travel/flight/supplier_a.c            mod_travel/flight/suppliers/supplier_a.c
file   mod_travel/flight/supplier_b.c            mod_travel/flight/suppliers/supplier_b.c
file   tests/db/test_hotel_bstore.c              tests/db/test_hotel_booking_store.c
file   tests/db/test_hotel_cstore.c              tests/db/test_hotel_cancellation_store.c
prefix trv_hbstore_   trv_hbooking_
prefix trv_hcstore_   trv_hcancellation_
prefix trv_hbapi_     trv_hreply_
prefix trv_fstore_    trv_fbooking_
prefix trv_fapi_      trv_freply_
name   trv_hbstore_list          trv_hbooking_query_list       mod_travel/hotel/booking_query.c
name   trv_hbstore_list_head     trv_hbooking_query_head       mod_travel/hotel/booking_query.c
name   trv_hbstore_list_joined   trv_hbooking_query_joined     mod_travel/hotel/booking_query.c
name   trv_hcancel_render        trv_hcancellation_render      mod_travel/hotel/cancellation_store.c
name   trv_hbooking_render       trv_hrender_booking           mod_travel/hotel/render.c
name   trv_hbooking_keep         trv_hrender_keep              mod_travel/hotel/render.c
name   trv_hmoney                trv_hrender_money             mod_travel/hotel/render.c
name   trv_hotel_ids_for         trv_hhotel_ids_for            mod_travel/hotel/hotel_store.c
name   trv_hotel_ids_of          trv_hhotel_ids_of             mod_travel/hotel/hotel_store.c
name   trv_hotel_place_area      trv_hhotel_place_area         mod_travel/hotel/hotel_store.c
name   trv_hotel_sellers         trv_hhotel_sellers            mod_travel/hotel/hotel_store.c
name   trv_hotel_upstream_fail   trv_hhotel_upstream_fail      mod_travel/hotel/hotel_store.c
name   trv_hotel_bad             trv_hwire_bad                 mod_travel/hotel/suppliers/wire.c
name   trv_hotel_board           trv_hwire_board               mod_travel/hotel/suppliers/wire.c
name   trv_hotel_call            trv_hwire_call                mod_travel/hotel/suppliers/wire.c
name   trv_hotel_call_content    trv_hwire_call_content        mod_travel/hotel/suppliers/wire.c
name   trv_hotel_call_forwarded  trv_hwire_call_forwarded      mod_travel/hotel/suppliers/wire.c
name   trv_hotel_call_idem       trv_hwire_call_idem           mod_travel/hotel/suppliers/wire.c
name   trv_hotel_money           trv_hwire_money               mod_travel/hotel/suppliers/wire.c
name   trv_hotel_num             trv_hwire_num                 mod_travel/hotel/suppliers/wire.c
name   trv_hotel_offers_trim     trv_hwire_offers_trim         mod_travel/hotel/suppliers/wire.c
name   trv_hotel_penalty_add     trv_hwire_penalty_add         mod_travel/hotel/suppliers/wire.c
name   trv_hotel_policy_sum      trv_hwire_policy_sum          mod_travel/hotel/suppliers/wire.c
name   trv_hotel_promo_add       trv_hwire_promo_add           mod_travel/hotel/suppliers/wire.c
name   trv_hotel_sum             trv_hwire_sum                 mod_travel/hotel/suppliers/wire.c
name   trv_flight_store_get      trv_fbooking_get              mod_travel/flight/booking_store.c
name   trv_flight_store_list     trv_fbooking_query_list       mod_travel/flight/booking_query.c
name   trv_flight_store_list_head   trv_fbooking_query_head    mod_travel/flight/booking_query.c
name   trv_flight_store_list_joined trv_fbooking_query_joined  mod_travel/flight/booking_query.c
name   trv_fbooking_render       trv_frender_booking           mod_travel/flight/render.c
name   trv_fbooking_render_text  trv_frender_booking_text      mod_travel/flight/render.c
name   trv_money_text_json       trv_frender_money_json        mod_travel/flight/render.c
name   trv_book_continue         trv_fbook_continue            mod_travel/flight/book.c
name   trv_book_phase_budget     trv_fbook_phase_budget        mod_travel/flight/book.c
name   trv_book_poll_ticketing   trv_fbook_poll_ticketing      mod_travel/flight/book.c
name   trv_book_service_pays     trv_fbook_service_pays        mod_travel/flight/book.c
name   trv_book_run              trv_fbook_run                 mod_travel/flight/book.h
name   trv_book_outcome          trv_fbook_outcome             mod_travel/flight/book.h
name   trv_book_input_parse      trv_finput_book               mod_travel/flight/input.c
name   trv_offers_input_parse    trv_finput_offers             mod_travel/flight/input.c
name   trv_prebook_input_parse   trv_finput_prebook            mod_travel/flight/input.c
name   trv_mask_membership       trv_fmask_membership          mod_travel/flight/mask.c
name   trv_passengers_public     trv_fmask_passengers          mod_travel/flight/mask.c
name   trv_offer_passes          trv_foffer_filter_passes      mod_travel/flight/offer_filter.c
name   trv_offers_filter         trv_foffer_filter_apply       mod_travel/flight/offer_filter.c
name   trv_offer_ref             trv_foffer_ref                mod_travel/flight/offer_ref.h
name   trv_offer_ref_decode      trv_foffer_ref_decode         mod_travel/flight/offer_ref.c
name   trv_offer_ref_encode      trv_foffer_ref_encode         mod_travel/flight/offer_ref.c
name   trv_quote_estimate        trv_fquote_calc_estimate      mod_travel/flight/quote_calc.c
name   trv_quote_from_supplier   trv_fquote_calc_supplier      mod_travel/flight/quote_calc.c
name   trv_sup_call              trv_fwire_call                mod_travel/flight/suppliers/wire.c
name   trv_sup_call_with         trv_fwire_call_with           mod_travel/flight/suppliers/wire.c
name   trv_sup_count_bag         trv_fwire_count_bag           mod_travel/flight/suppliers/wire.c
name   trv_sup_decimal           trv_fwire_decimal             mod_travel/flight/suppliers/wire.c
name   trv_sup_direction         trv_fwire_direction           mod_travel/flight/suppliers/wire.c
name   trv_sup_iso_minutes       trv_fwire_iso_minutes         mod_travel/flight/suppliers/wire.c
name   trv_sup_local_time        trv_fwire_local_time          mod_travel/flight/suppliers/wire.c
name   trv_sup_money             trv_fwire_money               mod_travel/flight/suppliers/wire.c
name   trv_supplier_a            trv_flight_supplier_a         mod_travel/flight/suppliers/supplier_a.c
name   trv_supplier_b            trv_flight_supplier_b         mod_travel/flight/suppliers/supplier_b.c
name   test_hotel_bstore         test_hotel_booking_store      -
name   test_hotel_cstore         test_hotel_cancellation_store -
EOF
# ---- table: end ----
set -euo pipefail

DRY=0
case "${1:-}" in
    --dry-run) DRY=1 ;;
    "") ;;
    *) echo "usage: $0 [--dry-run]" >&2; exit 2 ;;
esac

cd "$(git rev-parse --show-toplevel)"
command -v perl >/dev/null || { echo "rename-concepts: perl is needed" >&2; exit 1; }

TABLE="$TABLE" DRY="$DRY" SELF="tools/rename-concepts.sh" perl -e '
use strict; use warnings;
use File::Compare qw(compare);
use File::Path qw(make_path);
use File::Basename qw(dirname basename);

my $dry  = $ENV{DRY};
my $self = $ENV{SELF};
my (@files, @prefixes, @names);
for my $line (split /\n/, $ENV{TABLE}) {
    $line =~ s/^\s+|\s+$//g;
    next if $line eq "" || $line =~ /^#/;
    my @f = split /\s+/, $line;
    if    ($f[0] eq "file"   && @f == 3) { push @files,    [$f[1], $f[2]]; }
    elsif ($f[0] eq "prefix" && @f == 3) { push @prefixes, [$f[1], $f[2]]; }
    elsif ($f[0] eq "name"   && @f == 4) { push @names,    [$f[1], $f[2], $f[3]]; }
    else { die "rename-concepts: bad table line: $line\n"; }
}

# Include guards follow their header: TRV_ + the path under mod_travel/.
sub guard { my $p = shift; $p =~ s{^mod_travel/}{}; $p =~ s{[/.]}{_}g; return "TRV_" . uc $p; }
for my $f (@files) {
    next unless $f->[0] =~ /\.h$/ && $f->[1] =~ /\.h$/;
    push @names, [guard($f->[0]), guard($f->[1]), $f->[1]];
}

# A table whose output could be read again as its input is not re-runnable.
my %old_name = map { $_->[0] => 1 } @names;
for my $n (@names) {
    die "rename-concepts: table: $n->[1] is also renamed\n" if $old_name{$n->[1]};
    for my $px (@prefixes) {
        die "rename-concepts: table: $n->[1] starts with the old prefix $px->[0]\n"
            if index($n->[1], $px->[0]) == 0;
    }
}
for my $a (@prefixes) { for my $b (@prefixes) {
    die "rename-concepts: table: prefix $a->[1] starts with the old prefix $b->[0]\n"
        if index($a->[1], $b->[0]) == 0;
} }
my %old_path = map { $_->[0] => 1 } @files;
for my $f (@files) {
    die "rename-concepts: table: $f->[1] is also moved\n" if $old_path{$f->[1]};
}

sub slurp { my $p = shift; open my $fh, "<", $p or die "rename-concepts: $p: $!\n"; local $/; my $t = <$fh>; return $t; }

# ---- 1. files: check every move before making any ----
my (@moves, @drops);
for my $f (@files) {
    my ($old, $new) = @$f;
    my ($o, $n) = (-e $old, -e $new);
    if ($o && $n) {
        die "rename-concepts: $new exists and differs from $old: merge them by hand, then run again\n"
            if compare($old, $new) != 0;
        push @drops, $old;
    } elsif ($o) {
        push @moves, [$old, $new];
    }
}

# ---- the text to edit: tracked and new files, not the build, migrations or this script ----
my @tree = sort grep {
    $_ ne $self && -f $_ && !-l $_
    && m{(\.(c|h|md|sh|yaml|yml)|(^|/)Makefile)$}
    && !m{(^|/)(build|node_modules|\.git)/} && !m{^sql/}
} split /\0/, `git ls-files -z -co --exclude-standard`;
my %after = map { $_->[0] => $_->[1] } @moves;
my %text = map { $_ => slurp($_) } @tree;
my $all = join "\n", values %text;

# ---- 2. names: what to rename, checked against the tree ----
my %lifecycle_top;   # names that mod_travel/lifecycle/ declares or defines (top-level lines)
for my $p (grep { m{^mod_travel/lifecycle/} } @tree) {
    for my $l (split /\n/, $text{$p}) {
        next if $l =~ m{^\s|^#|^/?\*|^//};
        $lifecycle_top{$1} = 1 while $l =~ /\b([A-Za-z_]\w*)\b/g;
    }
}
sub file_text {
    my $t = "";
    my %before = map { $_->[1] => $_->[0] } @files;
    for my $home (split /,/, shift) {
        if (exists $text{$home}) { $t .= $text{$home}; next; }
        my $old = $before{$home};
        $t .= $text{$old} if defined $old && exists $text{$old};
    }
    return $t;
}
my %map;
my @warnings;
for my $n (@names) {
    my ($old, $new, $home) = @$n;
    next unless $all =~ /\b\Q$old\E\b/;
    my $ht = $home eq "-" ? "" : file_text($home);
    my $home_new = $ht =~ /\b\Q$new\E\b/;
    if ($home ne "-" && $ht !~ /\b\Q$old\E\b/ && !$home_new) {
        push @warnings, "left alone: $old (not in $home)"; next;
    }
    if ($lifecycle_top{$old}) {
        push @warnings, "left alone: $old (declared in mod_travel/lifecycle/)"; next;
    }
    die "rename-concepts: $new already exists beside $old: rename by hand, then run again\n"
        if $home ne "-" && !$home_new && $all =~ /\b\Q$new\E\b/;
    $map{$old} = $new;
}
my %seen;
for my $px (@prefixes) {
    my ($old, $new) = @$px;
    while ($all =~ /\b(\Q$old\E\w*)/g) {
        my $id = $1;
        next if $map{$id} || $seen{$id}++;
        (my $to = $id) =~ s/^\Q$old\E/$new/;
        die "rename-concepts: table: $id would become $to, which the table renames again\n"
            if $old_name{$to};
        # $to may exist already: the definition renamed on an earlier run,
        # which the uses of a branch merged since then join.
        $map{$id} = $to;
    }
}

# ---- 3. paths: full (with or without mod_travel/), bare (unique names), in-folder ----
my (@full, %bare_count, %bare_new);
for my $f (@files) {
    my ($old, $new) = @$f;
    (my $o = $old) =~ s{^mod_travel/}{};
    (my $n = $new) =~ s{^mod_travel/}{};
    push @full, [$o, $n];
    $bare_count{basename $old}++;
    $bare_new{basename $old}{basename $new} = 1;
}
# A bare name is renamed everywhere only when no other file anywhere has it.
my %all_bases;
$all_bases{basename $_}++ for grep { m{^mod_travel/} } split /\0/, `git ls-files -z -co --exclude-standard`;
my @bare_global;
for my $f (@files) {
    my $b = basename $f->[0];
    next unless $f->[0] =~ m{^mod_travel/} && $bare_count{$b} == 1 && ($all_bases{$b} // 0) <= 1;
    next unless basename($f->[1]) ne $b && dirname($f->[0]) eq dirname($f->[1]);
    push @bare_global, [$b, basename $f->[1]];
}
# list_query.c of both domains becomes booking_query.c: one bare name, one answer.
for my $b (sort keys %bare_new) {
    my @to = keys %{ $bare_new{$b} };
    next unless $bare_count{$b} > 1 && @to == 1;
    my @same = grep { basename($_->[0]) eq $b } @files;
    next if grep { dirname($_->[0]) ne dirname($_->[1]) } @same;
    push @bare_global, [$b, $to[0]];
}

sub rel { my ($from_dir, $to) = @_;
    return basename($to) if dirname($to) eq $from_dir;
    return substr($to, length($from_dir) + 1) if index($to, "$from_dir/") == 0;
    (my $t = $to) =~ s{^mod_travel/}{}; return $t; }

sub edit {
    my ($path, $t) = @_;   # $path: where the file is after the moves
    my $before_edit = $t;
    my $dir = dirname $path;
    $t =~ s{\b([A-Za-z_]\w*)\b}{exists $map{$1} ? $map{$1} : $1}ge;
    for my $p (@full) {
        my ($o, $n) = @$p;
        $t =~ s{(?<![\w/.-])(mod_travel/)?\Q$o\E(?![\w.])}{($1 // "") . $n}ge;
    }
    for my $b (@bare_global) {
        my ($o, $n) = @$b;
        $t =~ s{(?<![\w/.-])\Q$o\E(?![\w.])}{$n}g;
    }
    # Inside a domain folder (and its subfolders) a bare name means that folder s file.
    for my $f (@files) {
        my ($old, $new) = @$f;
        my $odir = dirname $old;
        next unless $old =~ m{^mod_travel/} && ($dir eq $odir || index($dir, "$odir/") == 0);
        my $o = basename $old;
        my $n = rel($dir, $new);
        next if $n eq $o;
        $t =~ s{(?<![\w/.-])\Q$o\E(?![\w.])}{$n}g;
    }
    # A file in a subfolder includes its parent folder s headers by full path.
    if ($dir =~ m{^mod_travel/[^/]+/}) {
        my $parent = dirname $dir;
        $t =~ s{^(\s*#\s*include\s+")([^"/]+)"}{
            (!-e "$dir/$2" && -e "$parent/$2") ? $1 . substr("$parent/$2", length("mod_travel/")) . "\"" : "$1$2\""
        }gme;
    }
    return $path =~ /\.[ch]$/ ? realign($before_edit, $t) : $t;
}

# The column of the innermost parenthesis a line leaves open, or undef.
sub open_col {
    my @open; my $q = "";
    my @c = split //, shift;
    for my $i (0 .. $#c) {
        my $ch = $c[$i];
        if ($q) { if ($ch eq "\\") { $c[$i + 1] = "" if $i < $#c; } elsif ($ch eq $q) { $q = ""; } next; }
        if ($ch eq "\"" || $ch eq "\x27") { $q = $ch; }
        elsif ($ch eq "(") { push @open, $i; }
        elsif ($ch eq ")") { pop @open; }
    }
    return @open ? $open[-1] : undef;
}
sub depth { my $l = shift; $l =~ s/"(?:[^"\\]|\\.)*"//g; return ($l =~ tr/(//) - ($l =~ tr/)//); }
# A renamed call moves its parenthesis: the lines aligned under it follow.
sub realign {
    my ($old, $new) = @_;
    my @o = split /\n/, $old, -1; my @n = split /\n/, $new, -1;
    return $new unless @o == @n;
    for my $i (0 .. $#o) {
        next if $o[$i] eq $n[$i];
        my ($co, $cn) = (open_col($o[$i]), open_col($n[$i]));
        next unless defined $co && defined $cn && $co != $cn;
        my $d = 1;
        for (my $j = $i + 1; $j <= $#o && $d > 0; $j++) {
            last unless $o[$j] =~ /^( +)\S/ && length($1) > $co;
            my $indent = length($1) + $cn - $co;
            (my $rest = $n[$j]) =~ s/^ +//;
            $n[$j] = (" " x $indent) . $rest;
            $d += depth($o[$j]);
        }
    }
    return join "\n", @n;
}

# ---- 4. do it ----
my $changed = 0;
for my $d (@drops) {
    print "rm      $d (the same file is already at its new place)\n"; $changed++;
    system("git", "rm", "-q", "-f", "--", $d) == 0 || die "rename-concepts: git rm $d failed\n" unless $dry;
}
for my $m (@moves) {
    my ($old, $new) = @$m;
    print "move    $old -> $new\n"; $changed++;
    next if $dry;
    make_path(dirname $new);
    my $tracked = system("git ls-files --error-unmatch -- \Q$old\E >/dev/null 2>&1") == 0;
    if ($tracked) { system("git", "mv", "--", $old, $new) == 0 || die "rename-concepts: git mv $old failed\n"; }
    else          { rename($old, $new) || die "rename-concepts: mv $old: $!\n"; }
}
my %drop = map { $_ => 1 } @drops;
for my $p (@tree) {
    next if $drop{$p};
    my $at = $after{$p} // $p;
    my $before = $text{$p};
    my $t = edit($at, $before);
    next if $t eq $before;
    my @a = split /\n/, $before, -1; my @b = split /\n/, $t, -1;
    my $lines = 0; for my $i (0 .. $#a) { $lines++ if !defined $b[$i] || $a[$i] ne $b[$i]; }
    print "edit    $at ($lines lines)\n"; $changed++;
    next if $dry;
    open my $fh, ">", $at or die "rename-concepts: $at: $!\n"; print $fh $t; close $fh or die "rename-concepts: $at: $!\n";
}

# The Makefile builds the suppliers/ subfolders of the domains.
if (-e "Makefile") {
    my $mk = slurp("Makefile");
    my $orig = $mk;
    my %sub_domains;
    for my $f (@files) { $sub_domains{$1} = 1 if dirname($f->[1]) =~ m{^mod_travel/(\w+)/suppliers$}; }
    for my $d (sort keys %sub_domains) {
        next if $mk =~ m{mod_travel/$d/suppliers/\*\.c};
        $mk =~ s{(DOMAIN_SRC\s*:=.*?)mod_travel/$d/\*\.c}{$1mod_travel/$d/*.c mod_travel/$d/suppliers/*.c}s
            or die "rename-concepts: Makefile: no mod_travel/$d/*.c in DOMAIN_SRC to add suppliers/ to\n";
    }
    if ($mk ne $orig) {
        print "edit    Makefile (DOMAIN_SRC builds the suppliers/ folders)\n"; $changed++;
        unless ($dry) { open my $fh, ">", "Makefile" or die; print $fh $mk; close $fh; }
    }
}

print STDERR "rename-concepts: warning: $_\n" for @warnings;
print $changed ? "rename-concepts: $changed changes" . ($dry ? " (dry run: none made)" : "") . "\n"
               : "rename-concepts: nothing to do\n";
' || exit 1
