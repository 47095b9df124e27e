/* Readable function names (src/demangle.c): C++ and Rust through
 * libiberty, the common Swift forms by hand; what is not mangled, or not
 * in a form ttv reads, stays as written. */
#include <string.h>

#include "src/demangle.h"
#include "t/tap.h"

/* The demangled form, or "(as written)" when demangle() declines. */
static const char *dm(const char *s)
{
	static struct buf b;
	buf_reset(&b);
	if (!demangle(s, strlen(s), &b))
		return "(as written)";
	return buf_str(&b);
}

int main(void)
{
	/* names from the shared ATF sample's manifest */
	is_str(dm("_ZN4cart8Checkout6commitEv"), "cart::Checkout::commit()", "C++: a method");
	is_str(dm("_ZN4shop6Engine6renderERKNS_5FrameE"), "shop::Engine::render(shop::Frame const&)",
	       "C++: parameters, const, substitutions");
	is_str(dm("$s8DemoShop13CartViewModelC4loadyyF"), "DemoShop.CartViewModel.load()", "Swift: a method");
	is_str(dm("$s8DemoShop13CartViewModelC9addToCart4itemyAA4ItemV_tF"), "DemoShop.CartViewModel.addToCart(item:)",
	       "Swift: its argument labels");
	is_str(dm("$s8DemoShop11NetworkPoolC5fetch3url10completiony10Foundation3URLV_ys6ResultOyAG4DataVs5Error_pGctF"),
	       "DemoShop.NetworkPool.fetch(url:completion:)", "Swift: labels, then a signature it skips");
	is_str(dm("_$s8DemoShop13CartViewModelC4loadyyF"), "DemoShop.CartViewModel.load()", "Swift: with the C underscore");
	/* Rust, both manglings */
	is_str(dm("_ZN4core3fmt5write17h5f1c0a2b3c4d5e6fE"), "core::fmt::write", "Rust legacy: the hash dropped");
	is_str(dm("_RNvCs1234_7mycrate3foo"), "mycrate::foo", "Rust v0");
	/* what stays as written */
	is_str(dm("main"), "(as written)", "a C name");
	is_str(dm("-[AppDelegate application:didFinishLaunchingWithOptions:]"), "(as written)", "Objective-C");
	is_str(dm("_Zfoo"), "(as written)", "not a valid C++ mangling");
	is_str(dm("$s3Foo"), "(as written)", "Swift: a module alone");
	is_str(dm("$s8DemoShop99CartView"), "(as written)", "Swift: a length past the end");
	is_str(dm("$s99999999999999999999999x"), "(as written)", "Swift: a length that overflows");
	is_str(dm("_Z"), "(as written)", "too short");
	ok(!demangle("_ZN4cart\0x", 10, &(struct buf){0}), "a NUL inside: as written");
	char big[8192];
	memset(big, 'a', sizeof big - 1);
	big[0] = '_', big[1] = 'Z', big[sizeof big - 1] = 0;
	is_str(dm(big), "(as written)", "8 KB: as written");
	return done_testing();
}
