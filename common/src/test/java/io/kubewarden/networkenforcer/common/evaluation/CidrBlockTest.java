package io.kubewarden.networkenforcer.common.evaluation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hand-written IP and CIDR parsing: what Go's net package accepts and how blocks contain addresses.
 */
class CidrBlockTest {

  static Stream<Arguments> addresses() {
    return Stream.of(
        Arguments.of("IPv4", "10.1.2.3", true, 0L, 0x0a010203L),
        Arguments.of("IPv4 extremes", "255.255.255.255", true, 0L, 0xffffffffL),
        Arguments.of(
            "IPv6 full form",
            "2001:0db8:0000:0000:0000:0000:0000:0001",
            false,
            0x20010db800000000L,
            1L),
        Arguments.of("IPv6 compressed", "2001:db8::1", false, 0x20010db800000000L, 1L),
        Arguments.of("IPv6 loopback", "::1", false, 0L, 1L),
        Arguments.of("IPv6 unspecified", "::", false, 0L, 0L),
        Arguments.of("IPv6 trailing compression", "fe80::", false, 0xfe80000000000000L, 0L),
        Arguments.of("IPv6 upper-case hex", "FE80::ABCD", false, 0xfe80000000000000L, 0xabcdL),
        Arguments.of(
            "IPv6 with embedded IPv4",
            "64:ff9b::192.0.2.33",
            false,
            0x0064ff9b00000000L,
            0xc0000221L),
        Arguments.of("IPv4-mapped IPv6 reads as IPv4", "::ffff:192.0.2.33", true, 0L, 0xc0000221L));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("addresses")
  void parsesAddresses(String name, String text, boolean v4, long hi, long lo) {
    assertThat(IpAddress.parse(text)).isEqualTo(new IpAddress(v4, hi, lo));
  }

  static Stream<Arguments> invalidAddresses() {
    return Stream.of(
        Arguments.of("empty", ""),
        Arguments.of("octet above 255", "10.0.0.256"),
        Arguments.of("three octets", "10.0.1"),
        Arguments.of("five octets", "10.0.0.1.2"),
        Arguments.of("trailing dot", "10.0.0.1."),
        Arguments.of("leading zero (ambiguous octal)", "10.0.0.01"),
        Arguments.of("host name", "db.example.com"),
        Arguments.of("two compressions", "2001::db8::1"),
        Arguments.of("nine groups", "1:2:3:4:5:6:7:8:9"),
        Arguments.of("compression with eight groups", "1:2:3:4::5:6:7:8"),
        Arguments.of("five hex digits", "2001:db8::12345"),
        Arguments.of("single leading colon", ":1:2:3:4:5:6:7"),
        Arguments.of("single trailing colon", "1:2:3:4:5:6:7:"),
        Arguments.of("zone id", "fe80::1%eth0"),
        Arguments.of("non-ASCII digit", "2001:db8::\u0663"));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("invalidAddresses")
  void rejectsInvalidAddresses(String name, String text) {
    assertThat(IpAddress.parse(text)).isNull();
  }

  static Stream<Arguments> containment() {
    return Stream.of(
        Arguments.of("IPv4 inside", "10.0.0.0/8", "10.255.0.1", true),
        Arguments.of("IPv4 outside", "10.0.0.0/8", "11.0.0.1", false),
        Arguments.of("IPv4 /32 itself", "192.0.2.7/32", "192.0.2.7", true),
        Arguments.of("IPv4 /32 neighbour", "192.0.2.7/32", "192.0.2.8", false),
        Arguments.of("IPv4 /0 contains every IPv4", "0.0.0.0/0", "203.0.113.1", true),
        Arguments.of("IPv4 /0 does not contain IPv6", "0.0.0.0/0", "2001:db8::1", false),
        Arguments.of("host bits are masked away", "10.1.2.3/16", "10.1.200.200", true),
        Arguments.of("host bits masked: outside", "10.1.2.3/16", "10.2.0.1", false),
        Arguments.of("IPv6 inside", "2001:db8::/32", "2001:db8:ffff::1", true),
        Arguments.of("IPv6 outside", "2001:db8::/32", "2001:db9::1", false),
        Arguments.of(
            "IPv6 prefix beyond 64 bits: inside", "2001:db8::1:0/112", "2001:db8::1:ffff", true),
        Arguments.of(
            "IPv6 prefix beyond 64 bits: outside", "2001:db8::1:0/112", "2001:db8::2:0", false),
        Arguments.of("IPv6 /128 itself", "::1/128", "::1", true),
        Arguments.of("IPv6 /128 neighbour", "::1/128", "::2", false),
        Arguments.of("IPv6 /0 does not contain IPv4", "::/0", "10.0.0.1", false),
        Arguments.of("IPv4-mapped block is an IPv4 block", "::ffff:10.0.0.0/104", "10.9.9.9", true),
        Arguments.of("IPv4-mapped block: outside", "::ffff:10.0.0.0/104", "11.0.0.1", false));
  }

  @ParameterizedTest(name = "{0}: {1} contains {2} = {3}")
  @MethodSource("containment")
  void containsAddresses(String name, String cidr, String address, boolean expected) {
    CidrBlock block = CidrBlock.parse(cidr);
    assertThat(block).as(cidr).isNotNull();
    assertThat(block.contains(IpAddress.parse(address))).isEqualTo(expected);
  }

  static Stream<Arguments> invalidBlocks() {
    return Stream.of(
        Arguments.of("no prefix length", "10.0.0.0"),
        Arguments.of("IPv4 prefix above 32", "10.0.0.0/33"),
        Arguments.of("IPv6 prefix above 128", "2001:db8::/129"),
        Arguments.of("empty prefix", "10.0.0.0/"),
        Arguments.of("negative prefix", "10.0.0.0/-1"),
        Arguments.of("bad address", "10.0.0/8"),
        Arguments.of("no address", "/8"));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("invalidBlocks")
  void rejectsInvalidBlocks(String name, String cidr) {
    assertThat(CidrBlock.parse(cidr)).isNull();
    assertThat(CidrBlock.parse(cidr)).as("cached invalid stays invalid").isNull();
  }
}
