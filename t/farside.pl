#!/usr/bin/perl
# A stand-in for ssh whose far side misbehaves, for $TTV_SSH: it runs the
# far-side loop ttv asks for here (as ssh would there), changed by MODE:
#   ok         as asked
#   flood[=N]  each range's bytes are followed, inside its gzip stream, by
#              N zero bytes (none given: without end)
#   trickle    replies come 512 bytes every 0.2 s
#   stall=N    each range's reply stops after N bytes; the far side lives on
#   silent     connects, then never answers
#   cut=N      the connection ends after N bytes of replies
#   listflood  a directory's listing never ends
# Usage: TTV_SSH="perl farside.pl MODE" (then ssh's options, HOST, COMMAND).
# Ended (TERM, HUP, or the end of its input while the far side is stuck),
# it ends everything it started, as the far side of a closed ssh does.
use strict;
use warnings;
use IO::Select;
use File::Spec;

my $me = File::Spec->rel2abs($0);
my $mode = shift // 'ok';

# the filters it puts into the far side's reply pipeline
if ($mode eq '-trickle') {
    while (sysread(STDIN, my $b, 512)) {
        syswrite(STDOUT, $b);
        select(undef, undef, undef, 0.2);
    }
    exit 0;
}
if ($mode eq '-stall') {
    my $left = shift;
    while ($left > 0 && (my $n = sysread(STDIN, my $b, $left))) {
        syswrite(STDOUT, $b);
        $left -= $n;
    }
    sleep 3600;
    exit 0;
}

my $cmd = $ARGV[-1] // die "farside: no command\n";
my ($how, $n) = split /=/, $mode, 2;
if ($how eq 'flood') {
    my $more = defined $n ? "head -c $n /dev/zero" : 'cat /dev/zero';
    $cmd =~ s/head -c "\$b" \| gzip -1/{ head -c "\$b"; $more; } | gzip -1/ or die "farside: no range reply\n";
} elsif ($how eq 'trickle') {
    $cmd =~ s/gzip -1;/gzip -1 | perl $me -trickle;/ or die "farside: no range reply\n";
} elsif ($how eq 'stall') {
    $cmd =~ s/gzip -1;/gzip -1 | perl $me -stall $n;/ or die "farside: no range reply\n";
} elsif ($how eq 'listflood') {
    $cmd =~ s/done; echo \.;;/done; yes "f x";;/ or die "farside: no listing reply\n";
} elsif ($how eq 'silent') {
    $cmd = 'cat >/dev/null; sleep 3600';
} elsif ($how ne 'ok' && $how ne 'cut') {
    die "farside: no mode $mode\n";
}

pipe(my $in_r, my $in_w) or die "farside: pipe: $!\n";
pipe(my $out_r, my $out_w) or die "farside: pipe: $!\n";
my $pid = fork() // die "farside: fork: $!\n";
if (!$pid) {
    setpgrp(0, 0);
    open(STDIN, '<&', $in_r) or die;
    open(STDOUT, '>&', $out_w) or die;
    close($_) for $in_w, $out_r;
    exec('/bin/sh', '-c', $cmd) or die "farside: exec: $!\n";
}
close($_) for $in_r, $out_w;
my $end = sub { kill('TERM', -$pid); exit 0 };
$SIG{TERM} = $SIG{HUP} = $SIG{PIPE} = $end;

my $sel = IO::Select->new(\*STDIN, $out_r);
my $left = $how eq 'cut' ? $n : undef;
for (;;) {
    for my $fh ($sel->can_read) {
        my $got = sysread($fh, my $b, 65536);
        if ($fh == $out_r) {
            $end->() if !$got;
            $b = substr($b, 0, $left) if defined $left && $left < $got;
            syswrite(STDOUT, $b) // $end->();
            $end->() if defined $left && ($left -= length $b) <= 0;
        } elsif ($got) {
            syswrite($in_w, $b);
        } else {
            close($in_w); # the end of ttv's requests: the loop over there ends
            $sel->remove(\*STDIN);
        }
    }
}
